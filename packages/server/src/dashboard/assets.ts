import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadClientBundle } from '../three-ds/client-bundle';

/** One served file: its content-addressed path, body, type and Subresource Integrity hash. */
export interface DashboardAsset {
  readonly path: string;
  readonly body: string;
  readonly contentType: string;
  readonly integrity: string;
}

export interface DashboardAssets {
  readonly script: DashboardAsset;
  readonly style: DashboardAsset;
}

/**
 * The page's Content-Security-Policy: scripts and styles only from this origin (the script also
 * pinned by its integrity hash), no inline script or style element, requests only to this origin,
 * images from this origin and data: URLs (the charts' canvases need nothing else), and no framing.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function asset(name: string, extension: string, body: string, contentType: string): DashboardAsset {
  const short = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;
  return { path: `/dashboard/assets/${name}.${short}.${extension}`, body, contentType, integrity };
}

let loading: Promise<DashboardAssets> | undefined;

/**
 * The dashboard's script and style sheet, built once per process and kept in memory. The script is
 * bundled from ui/ with esbuild (Preact, htm and Chart.js included), like the 3DS library, so a fresh
 * clone serves the current dashboard with no build step.
 * @example const { script, style } = await loadDashboardAssets();
 */
export function loadDashboardAssets(): Promise<DashboardAssets> {
  loading ??= build().catch((error: unknown) => {
    // A failed build is not cached, so the next request tries again.
    loading = undefined;
    throw error;
  });
  return loading;
}

async function build(): Promise<DashboardAssets> {
  // Both builds share esbuild's one service process, and the 3DS build stops it when done, which
  // would cut off a build of ours still running: ours starts after it.
  await loadClientBundle().catch(() => undefined);
  const { build: esbuild, stop } = await import('esbuild');
  // esbuild's service process would otherwise stay for the life of the service.
  const result = await esbuild({
    entryPoints: [fileURLToPath(new URL('./ui/main.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'iife',
    // Chart.js ships ES2022 (class fields); browsers of the last three years run it as is.
    target: ['es2022', 'chrome100', 'firefox100', 'safari15.4'],
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  }).finally(() => stop());
  const code = result.outputFiles[0]?.text;
  if (!code) throw new Error('esbuild produced no output for the dashboard');
  const css = await readFile(new URL('./ui/dashboard.css', import.meta.url), 'utf8');
  return {
    script: asset('dashboard', 'js', code, 'text/javascript; charset=utf-8'),
    style: asset('dashboard', 'css', css, 'text/css; charset=utf-8'),
  };
}

/** The HTML shell: no inline script or style; the bundle renders everything into `#app`. */
export function renderShell(assets: DashboardAssets, lang: 'pt-BR' | 'en'): string {
  const title = lang === 'pt-BR' ? 'Painel Colibri' : 'Colibri dashboard';
  const noScript = lang === 'pt-BR' ? 'O painel precisa de JavaScript.' : 'The dashboard needs JavaScript.';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<link rel="stylesheet" href="${assets.style.path}" integrity="${assets.style.integrity}">
<script defer src="${assets.script.path}" integrity="${assets.script.integrity}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>${noScript}</p></noscript>
</body>
</html>
`;
}
