#!/usr/bin/env node
// The `colibri` command. It runs the built service, dist/colibri.mjs (`npm run build`, see
// scripts/build.js), which needs production dependencies only.
//
// On a clone (src/ present), a build whose inputs differ from the sources on disk is rebuilt first, so
// `npm install && npm start` works with no separate build step and an edited source is always the one
// that runs; checking takes a few milliseconds, building about a second. An image that ships dist/
// without src/ runs dist/ as it is. COLIBRI_LOADER=tsx runs the sources through tsx instead, one module
// per file (for debugging the loader itself).
import { pathToFileURL } from 'node:url';

let buildCli;
/** @type {import('../src/cli.ts').CliOptions} */
const options = {};
if (process.env.COLIBRI_LOADER === 'tsx') {
  const { register } = await import('tsx/esm/api');
  register();
  ({ buildCli } = await import('../src/cli.ts'));
} else {
  const { buildService, bundleFile, readBuildInfo, staleReason } = await import('../scripts/build.js');
  const reason = staleReason();
  if (reason !== undefined) {
    try {
      await buildService();
    } catch (error) {
      const code = /** @type {{ code?: string }} */ (error).code;
      process.stderr.write(
        code === 'ERR_MODULE_NOT_FOUND'
          ? `colibri: the build in dist/ is out of date (${reason}) and esbuild is not installed: run \`npm install\` then \`npm run build\`\n`
          : `colibri: building the service failed (${reason}): ${String(error)}\n`,
      );
      process.exit(1);
    }
  }
  // Stack traces name the TypeScript files and lines through the source maps beside dist/colibri.mjs and
  // its chunks. Source maps are turned on once the packages the bundle imports are loaded (in the
  // bundle's order, so each is evaluated when it would have been): turned on before, Node would read and
  // keep those of some 500 files in node_modules. The entry loads its own few packages; the service's,
  // only when a command that runs the service or opens its database is about to load its modules.
  const { packages, entryPackages } = readBuildInfo();
  for (const name of entryPackages) await import(name);
  process.setSourceMapsEnabled(true);
  ({ buildCli } = await import(pathToFileURL(bundleFile).href));
  options.beforeServer = async () => {
    process.setSourceMapsEnabled(false);
    for (const name of packages) await import(name);
    process.setSourceMapsEnabled(true);
  };
}
await buildCli(options).parseAsync(process.argv);
