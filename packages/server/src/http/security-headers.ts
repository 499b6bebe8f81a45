import type { App } from '../context';
import type { Config } from '../config';

/** One year, the value browsers' preload lists expect at least. */
const HSTS = 'max-age=31536000';

/**
 * Headers every answer carries, whatever route (or none) produced it:
 * - `X-Content-Type-Options: nosniff`, so a browser never runs a JSON answer or an error body as
 *   HTML or script;
 * - `Referrer-Policy: no-referrer`, so the checkout id in a page's address (the capability to pay
 *   it) never leaks to another site through the Referer header; a route may set its own policy;
 * - `Strict-Transport-Security` when `PUBLIC_BASE_URL` is https, so that a browser that once reached
 *   Colibri over TLS never falls back to plain HTTP. Over plain HTTP the header means nothing, so it
 *   is not sent when Colibri is not published over https.
 * @example installSecurityHeaders(app, ctx.config);
 */
export function installSecurityHeaders(app: App, config: Pick<Config, 'publicBaseUrl'>): void {
  const headers = securityHeadersFor(config);
  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of Object.entries(headers)) {
      // A route may choose its own referrer policy; nosniff and HSTS are not negotiable.
      if (name !== 'referrer-policy' || !reply.hasHeader(name)) reply.header(name, value);
    }
    done(null, payload);
  });
}

/**
 * The headers themselves, for answers that no hook sees (the router's own errors).
 * @example securityHeadersFor({ publicBaseUrl: 'https://pay.example.com' })['strict-transport-security'] // 'max-age=31536000'
 */
export function securityHeadersFor(config: Pick<Config, 'publicBaseUrl'>): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
  if (config.publicBaseUrl?.toLowerCase().startsWith('https://') === true) headers['strict-transport-security'] = HSTS;
  return headers;
}
