import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The page's own script and style sheet, read once at start. Each is served under a name that
 * carries its content hash (so it can be cached for a year and a new version is a new URL), and the
 * script tag carries a Subresource Integrity hash: the browser runs it only if it is exactly this file.
 */
export interface PageAsset {
  readonly path: string;
  readonly body: string;
  readonly contentType: string;
  /** `sha384-…`, for the `integrity` attribute. */
  readonly integrity: string;
}

function load(file: string, contentType: string): PageAsset {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url), 'utf8');
  const digest = createHash('sha384').update(body).digest();
  const [name, extension] = file.split('.');
  const short = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/pay/assets/${name}.${short}.${extension}`, body, contentType, integrity: `sha384-${digest.toString('base64')}` };
}

let cached: { script: PageAsset; style: PageAsset } | undefined;

/** @example const { script, style } = pageAssets(); script.integrity // 'sha384-…' */
export function pageAssets(): { script: PageAsset; style: PageAsset } {
  cached ??= { script: load('checkout.js', 'text/javascript; charset=utf-8'), style: load('checkout.css', 'text/css; charset=utf-8') };
  return cached;
}

/**
 * The page's Content-Security-Policy: nothing by default; scripts and styles only from our origin
 * (the script also pinned by its integrity hash), images from our origin or data: URLs, requests
 * only to our origin, frames (the 3DS challenge) only from our origin, forms only to our origin, and no
 * framing of the page itself (against clickjacking of the card form).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  // The issuer's 3DS challenge of a debit card is shown inside the page, from our own origin.
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');
