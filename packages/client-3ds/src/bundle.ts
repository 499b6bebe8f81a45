import { fileURLToPath } from 'node:url';

/** The file name the service serves and `npm run build` writes; the version marker is the spec's. */
export const BUNDLE_FILE_NAME = 'client-v1.0.min.js';

/**
 * Bundles and minifies the library into one classic script (an IIFE, so it runs from a plain
 * `<script src>` in any page and leaks nothing but `window.Colibri`). Used by the build script and
 * by the service, which builds it in memory at start so a fresh clone needs no build step.
 * esbuild is imported only here, at build time: the bundle itself has no dependencies.
 * @example const code = await bundleClient(); // '/*! Colibri 3DS client v1.0 *\/ (()=>{…})();'
 */
export async function bundleClient(): Promise<string> {
  const { build, stop } = await import('esbuild');
  // esbuild's service process (about 13 MB) would otherwise stay for the life of the service.
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020', 'chrome90', 'firefox90', 'safari14'],
    legalComments: 'none',
    banner: { js: '/*! Colibri 3DS client v1.0 */' },
    write: false,
    logLevel: 'silent',
  }).finally(() => stop());
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no output for the 3DS client');
  return output.text;
}
