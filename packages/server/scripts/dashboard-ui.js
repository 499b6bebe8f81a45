// The dashboard's front end as browsers get it: src/dashboard/ui/main.ts bundled with Preact, htm and
// Chart.js into one minified classic script, and ui/dashboard.css as it is. `npm run build` writes both
// under dist/dashboard/built/ (scripts/build.js), and the built service serves those files. Run from the
// sources (the tests, COLIBRI_LOADER=tsx), where dist/ is not read, the service builds them in memory
// at start (src/dashboard/assets.ts). Both call this one function, so the two cannot differ.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files written under dist/dashboard/built/, and read from there by the built service. */
export const BUILT_SCRIPT = 'dashboard.js';
export const BUILT_STYLE = 'dashboard.css';

/**
 * Builds the dashboard's script and style sheet from `uiDir` (src/dashboard/ui) with the caller's
 * esbuild, which the caller also stops. `inputs` are the absolute paths of every file read.
 * @example const { script, style } = await bundleDashboardUi(await import('esbuild'), uiDir);
 */
export async function bundleDashboardUi(esbuild, uiDir) {
  const result = await esbuild.build({
    absWorkingDir: uiDir,
    entryPoints: [join(uiDir, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    // Chart.js ships ES2022 (class fields); browsers of the last three years run it as is.
    target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
    legalComments: 'none',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const script = result.outputFiles[0]?.text;
  if (!script) throw new Error('esbuild produced no output for the dashboard');
  const styleFile = join(uiDir, 'dashboard.css');
  const inputs = [...Object.keys(result.metafile.inputs).map((input) => join(uiDir, input)), styleFile];
  return { script, style: readFileSync(styleFile, 'utf8'), inputs };
}
