// Compiles the service once: `npm run build` (and `npm start` when the sources changed since the last
// build, see bin/colibri.js) bundles src/cli.ts and the workspace TypeScript it imports into
// dist/colibri.mjs with esbuild. Packages from node_modules stay ordinary imports, so the built service
// runs with production dependencies only (`npm ci --omit=dev`), without esbuild or tsx.
//
// dist/build-info.json lists every input file with its content hash; bin/colibri.js compares them with
// the files on disk to decide whether a build is needed, so editing a source and running `npm start`
// always runs that source.
//
// Some modules read files next to their source (`new URL('./assets/…', import.meta.url)`). In the bundle
// each keeps a location of its own: its path under src/, placed under dist/ (src/runtime.ts becomes
// dist/runtime.ts, whose `../package.json` is still the server's manifest). The checkout page's assets
// are copied to the matching place under dist/, and the dashboard's front end is bundled into
// dist/dashboard/built/ (scripts/dashboard-ui.js), so dist/ works without src/ and without esbuild.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILT_SCRIPT, BUILT_STYLE, bundleDashboardUi } from './dashboard-ui.js';

export const serverDir = fileURLToPath(new URL('..', import.meta.url));
export const srcDir = join(serverDir, 'src');
export const distDir = join(serverDir, 'dist');
export const bundleFile = join(distDir, 'colibri.mjs');
export const buildInfoFile = join(distDir, 'build-info.json');
/** The dashboard's built script and style sheet (src/dashboard/assets.ts reads them from here). */
export const dashboardBuiltDir = join(distDir, 'dashboard', 'built');

/** Folders of files read at run time, copied under dist/ at the same relative place. */
const ASSET_DIRS = ['checkout-page/assets'];

/** The hash recorded for one input file. */
export function fileHash(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The path of a file relative to the server package, with forward slashes. */
function fromServer(file) {
  return relative(serverDir, file).split(sep).join('/');
}

/**
 * Builds dist/colibri.mjs (with a source map beside it), the dashboard's front end in
 * dist/dashboard/built/, and dist/build-info.json. Concurrent builds
 * (several processes starting on changed sources) are safe: every file is written under a temporary
 * name and renamed into place, so a reader never sees half a file.
 * @example await buildService(); // { file: '…/dist/colibri.mjs', inputs: 260 }
 */
export async function buildService() {
  const esbuild = await import('esbuild');
  let result;
  let dashboard;
  try {
    result = await esbuild.build({
      absWorkingDir: serverDir,
      // src/cli.ts is the entry; the modules that only the service's commands need (src/server-commands.ts,
      // imported when one runs) come out as chunks beside it, so the developer's commands start light.
      entryPoints: { colibri: join(srcDir, 'cli.ts') },
      outdir: distDir,
      outExtension: { '.js': '.mjs' },
      // Chunks sit beside the entry, not in a folder of their own: every module's `import.meta.url`
      // is rewritten relative to the output file's folder (below).
      chunkNames: '[name]-[hash]',
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'warning',
      metafile: true,
      plugins: [
        {
          name: 'colibri-sources',
          setup(build) {
            // Packages are imported from node_modules as they are; only the workspace's TypeScript is bundled.
            build.onResolve({ filter: /^[^./]/ }, (args) =>
              args.kind === 'entry-point' || isAbsolute(args.path) || args.path.startsWith('@colibri/') ? undefined : { path: args.path, external: true },
            );
            build.onLoad({ filter: /\.ts$/ }, (args) => {
              const place = relative(srcDir, args.path).split(sep).join('/');
              const url = `new URL(${JSON.stringify(place)}, import.meta.url).href`;
              return { contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', url), loader: 'ts' };
            });
          },
        },
      ],
    });
    dashboard = await bundleDashboardUi(esbuild, join(srcDir, 'dashboard', 'ui'));
  } finally {
    // esbuild's service process is not needed once the bundle is built.
    await esbuild.stop?.();
  }
  mkdirSync(distDir, { recursive: true });
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = join(serverDir, input);
    inputs[fromServer(file)] = fileHash(file);
  }
  for (const dir of ASSET_DIRS) {
    const from = join(srcDir, dir);
    const to = join(distDir, dir);
    const partial = `${to}.${process.pid}.tmp`;
    const previous = `${to}.${process.pid}.old`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(from, partial, { recursive: true });
    // Moved aside in one step, then deleted: a recursive delete of `to` itself would fail (ENOTEMPTY)
    // when another build renames its copy into place meanwhile.
    try {
      renameSync(to, previous);
    } catch {
      // No earlier copy, or another build moved it first.
    }
    rmSync(previous, { recursive: true, force: true });
    try {
      renameSync(partial, to);
    } catch {
      // Another build renamed the same files into place first.
      rmSync(partial, { recursive: true, force: true });
    }
    for (const name of readdirSync(from).sort()) inputs[fromServer(join(from, name))] = fileHash(join(from, name));
  }
  // The build's own scripts are inputs too: a changed build is a rebuild.
  for (const file of [dashboard.inputs, fileURLToPath(import.meta.url), fileURLToPath(new URL('./dashboard-ui.js', import.meta.url))].flat()) {
    inputs[fromServer(file)] = fileHash(file);
  }
  mkdirSync(dashboardBuiltDir, { recursive: true });
  writeAtomically(join(dashboardBuiltDir, BUILT_SCRIPT), dashboard.script);
  writeAtomically(join(dashboardBuiltDir, BUILT_STYLE), dashboard.style);
  const { packages, entryPackages } = importedPackages(result.metafile);
  const outputs = Object.keys(result.metafile.outputs).filter((file) => !file.endsWith('.map')).map((file) => relative(distDir, join(serverDir, file)).split(sep).join('/'));
  for (const output of result.outputFiles) writeAtomically(output.path, output.contents);
  writeAtomically(buildInfoFile, `${JSON.stringify({ builtAt: new Date().toISOString(), packages, entryPackages, outputs, inputs }, null, 1)}\n`);
  removeOldChunks(outputs);
  return { file: bundleFile, inputs: Object.keys(inputs).length };
}

/**
 * The packages the build imports, in the order the bundle first imports them: `packages` for the
 * whole service, `entryPackages` for dist/colibri.mjs and the chunks it imports statically (what a
 * command that does not run the service loads).
 */
function importedPackages(metafile) {
  const isPackage = (i) => i.external && i.kind === 'import-statement' && !i.path.startsWith('node:');
  const packages = new Set(Object.values(metafile.outputs).flatMap((output) => output.imports.filter(isPackage).map((i) => i.path)));
  const entryPackages = new Set();
  const visit = (file, seen) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of metafile.outputs[file].imports) {
      if (isPackage(i)) entryPackages.add(i.path);
      else if (!i.external && i.kind === 'import-statement') visit(i.path, seen);
    }
  };
  const entry = Object.keys(metafile.outputs).find((file) => metafile.outputs[file].entryPoint !== undefined);
  visit(entry, new Set());
  return { packages: [...packages], entryPackages: [...entryPackages] };
}

/**
 * Deletes chunks of earlier builds. One is kept for a day after it was last built: a process started
 * from that build may not have loaded the chunks of the service's commands yet.
 */
function removeOldChunks(outputs) {
  const current = new Set(outputs.flatMap((file) => [file, `${file}.map`]));
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(distDir)) {
    if (!/^[\w-]+-[A-Z0-9]{8}\.mjs(\.map)?$/.test(name) || current.has(name)) continue;
    try {
      if (statSync(join(distDir, name)).mtimeMs < dayAgo) rmSync(join(distDir, name), { force: true });
    } catch {
      // Removed by another build meanwhile.
    }
  }
}

function writeAtomically(file, contents) {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, file);
}

/** dist/build-info.json: the packages the bundle imports, its output files and its inputs' hashes. */
export function readBuildInfo() {
  return JSON.parse(readFileSync(buildInfoFile, 'utf8'));
}

/**
 * Why the build in dist/ does not match the sources, or undefined when it does. A missing src/ (an
 * image that ships dist/ alone) counts as matching.
 */
export function staleReason() {
  let info;
  try {
    info = readBuildInfo();
  } catch {
    return 'no build in dist/';
  }
  for (const file of info.outputs ?? ['colibri.mjs']) if (!existsSync(join(distDir, file))) return `dist/${file} is missing`;
  for (const [file, hash] of Object.entries(info.inputs)) {
    let now;
    try {
      now = fileHash(join(serverDir, file));
    } catch {
      // A shipped dist/ without its sources is a build, not a stale one.
      if (file.startsWith('src/') || file.startsWith('../')) continue;
      return `${file} is gone`;
    }
    if (now !== hash) return `${file} changed`;
  }
  return undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  const { file, inputs } = await buildService();
  console.log(`built ${fromServer(file)} from ${inputs} files in ${Date.now() - started} ms`);
}
