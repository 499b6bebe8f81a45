#!/usr/bin/env node
// Runs the TypeScript sources, so `npm start` and `colibri` need no build step.
//
// At start, esbuild (a dependency of tsx, so always installed with it) bundles the service's sources
// into one ES module in packages/server/node_modules/.cache/colibri/, named by a hash of its content,
// and this process imports it; packages from node_modules stay ordinary imports. That takes a few
// hundred milliseconds, less than tsx takes to load the sources one by one, and the service holds about
// 45 MB less resident memory than under tsx: on Node 20 tsx's module hooks run on a thread of their own,
// with a second V8 heap (about 50 MB committed) for as long as the process runs, and tsx turns on source
// maps before any package loads, so Node reads and keeps those of some 500 files in node_modules. Stack
// traces still name the TypeScript files and lines: the bundle carries an inline source map, and source
// maps are turned on once the packages it imports are loaded.
//
// COLIBRI_LOADER=tsx runs the sources through tsx instead, one module per file, as does a missing
// esbuild or a cache directory that cannot be written.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const serverDir = fileURLToPath(new URL('..', import.meta.url));
const cacheDir = join(serverDir, 'node_modules', '.cache', 'colibri');
/** Bundles of other source versions are deleted once this old: a process needs its file only while it starts. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Bundles src/cli.ts and the workspace packages it imports. Returns the module's file and the packages
 * it imports statically, or undefined to use tsx.
 */
async function bundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [join(serverDir, 'src', 'cli.ts')],
      outfile: join(cacheDir, 'cli.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      metafile: true,
      plugins: [
        {
          name: 'colibri-sources',
          setup(build) {
            // Packages are imported from node_modules as they are; only the workspace's TypeScript is bundled.
            build.onResolve({ filter: /^[^./]/ }, (args) =>
              args.kind === 'entry-point' || isAbsolute(args.path) || args.path.startsWith('@colibri/') ? undefined : { path: args.path, external: true },
            );
            // Each module keeps its own import.meta.url: some read files next to their source.
            build.onLoad({ filter: /\.ts$/ }, (args) => ({
              contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
              loader: 'ts',
            }));
          },
        },
      ],
    });
  } finally {
    // esbuild's service process is not needed once the bundle is built.
    await esbuild.stop?.();
  }
  const code = result.outputFiles[0].contents;
  const packages = Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((i) => i.external && i.kind === 'import-statement' && !i.path.startsWith('node:'))
    .map((i) => i.path);
  const file = join(cacheDir, `cli-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  try {
    mkdirSync(cacheDir, { recursive: true });
    const now = Date.now();
    for (const name of readdirSync(cacheDir)) {
      const other = join(cacheDir, name);
      try {
        if (other !== file && now - statSync(other).mtimeMs > STALE_MS) rmSync(other, { force: true });
      } catch {
        // Another process removed it first.
      }
    }
    try {
      utimesSync(file, new Date(now), new Date(now));
    } catch {
      // Written once per source version, through a rename so that concurrent starts never read half a file.
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, code);
      renameSync(partial, file);
    }
  } catch {
    return undefined;
  }
  return { file, packages };
}

const bundled = process.env.COLIBRI_LOADER === 'tsx' ? undefined : await bundle();
let buildCli;
if (bundled) {
  // In the bundle's order, so each package is evaluated when it would have been.
  for (const name of bundled.packages) await import(name);
  process.setSourceMapsEnabled(true);
  ({ buildCli } = await import(pathToFileURL(bundled.file).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ buildCli } = await import('../src/cli.ts'));
}
await buildCli().parseAsync(process.argv);
