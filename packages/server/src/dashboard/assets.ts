import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type * as Esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';
import { BUILT_SCRIPT, BUILT_STYLE, bundleDashboardUi } from '../../scripts/dashboard-ui.js';
import { loadClientBundle } from '../three-ds/client-bundle';
import { LANGUAGES } from './ui/i18n';

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

/** Where `npm run build` puts the script and style sheet: dist/dashboard/built/ in the built service. */
const BUILT = new URL('./built/', import.meta.url);

/**
 * The dashboard's script and style sheet, read once per process and kept in memory. The built service
 * (dist/) serves the files that `npm run build` bundled (scripts/dashboard-ui.js), so it needs no
 * esbuild at run time. Run from the sources, where there is no such folder, they are bundled from ui/
 * once at start with the same function (esbuild being a development dependency, present there).
 * @example const { script, style } = await loadDashboardAssets();
 */
export function loadDashboardAssets(): Promise<DashboardAssets> {
  loading ??= load().catch((error: unknown) => {
    // A failed load is not cached, so the next request tries again.
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<DashboardAssets> {
  const { script, style } = (await readBuilt()) ?? (await bundleFromSources());
  return {
    script: asset('dashboard', 'js', script, 'text/javascript; charset=utf-8'),
    style: asset('dashboard', 'css', style, 'text/css; charset=utf-8'),
  };
}

/** The files of `npm run build`, or undefined where there are none (running from the sources). */
async function readBuilt(): Promise<{ script: string; style: string } | undefined> {
  try {
    const [script, style] = await Promise.all([readFile(new URL(BUILT_SCRIPT, BUILT), 'utf8'), readFile(new URL(BUILT_STYLE, BUILT), 'utf8')]);
    return { script, style };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function bundleFromSources(): Promise<{ script: string; style: string }> {
  // Both builds share esbuild's one service process, and the 3DS build stops it when done, which
  // would cut off a build of ours still running: ours starts after it.
  await loadClientBundle().catch(() => undefined);
  let esbuild: typeof Esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new Error(`The dashboard is not built (no ${fileURLToPath(BUILT)}) and esbuild is not installed (${String(error)}): run \`npm run build\``, { cause: error });
  }
  try {
    return await bundleDashboardUi(esbuild, fileURLToPath(new URL('./ui/', import.meta.url)));
  } finally {
    // esbuild's service process would otherwise stay for the life of the service.
    await esbuild.stop();
  }
}

export type ShellLanguage = 'pt-BR' | 'en' | 'es';

const SHELL_WORDS: Record<ShellLanguage, { title: string; noScript: string }> = {
  'pt-BR': { title: 'Painel Colibri', noScript: 'O painel precisa de JavaScript.' },
  en: { title: 'Colibri dashboard', noScript: 'The dashboard needs JavaScript.' },
  es: { title: 'Panel Colibri', noScript: 'El panel necesita JavaScript.' },
};

/** Text safe inside HTML text and double-quoted attributes. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The sign-in form as the script renders it (ui/main.ts SignIn), sent in the page itself when the
 * request carries no live session. Someone who types, or a password manager that fills the fields,
 * before the script has loaded types into this form; the script reads the fields' values (and which
 * one had the focus) before it renders its own form in their place, so nothing typed is lost. The
 * button stays disabled until the script takes over, so pressing Enter early submits nothing.
 */
function signInForm(lang: ShellLanguage): string {
  const t = LANGUAGES[lang];
  return `<header class="top"><span class="brand">Colibri</span></header>
<main class="sign-in">
<form class="card" method="post" action="/dashboard" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">${escapeHtml(t.signInTitle)}</h1>
<p class="muted">${escapeHtml(t.signInHelp)}</p>
<label for="api-key">${escapeHtml(t.apiKey)}</label>
<input id="api-key" name="apiKey" autocomplete="username" required maxlength="200" spellcheck="false">
<label for="api-secret">${escapeHtml(t.apiSecret)}</label>
<input id="api-secret" name="apiSecret" type="password" autocomplete="current-password" required maxlength="200">
<button type="submit" class="primary" disabled>${escapeHtml(t.signIn)}</button>
</form>
</main>`;
}

/**
 * The HTML shell: no inline script or style; the bundle renders everything into `#app`. Signed out
 * (`signedOut`), `#app` already holds the sign-in form and says so (`data-signed-out`), so the script
 * starts from that form instead of asking whether a session exists.
 */
export function renderShell(assets: DashboardAssets, lang: ShellLanguage, signedOut = false): string {
  const { title, noScript } = SHELL_WORDS[lang];
  const app = signedOut ? `<div id="app" data-signed-out="true">\n${signInForm(lang)}\n</div>` : '<div id="app"></div>';
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
${app}
<noscript><p>${noScript}</p></noscript>
</body>
</html>
`;
}
