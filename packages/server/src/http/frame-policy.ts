import type { App } from '../context';

/**
 * Nothing Colibri serves may be framed unless its route says so: every answer gets
 * `X-Frame-Options: DENY` and, when it has no Content-Security-Policy of its own,
 * `Content-Security-Policy: frame-ancestors 'none'` (clickjacking protection for old and new
 * browsers alike). A route that must be framed, such as the 3DS challenge page, or that needs its
 * own policy, such as the hosted checkout page, sends a Content-Security-Policy with its own
 * `frame-ancestors`; this hook then leaves both headers to it.
 * @example installFramePolicy(app);
 */
export function installFramePolicy(app: App): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy !== 'string' || !policy.includes('frame-ancestors')) {
      if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
      if (policy === undefined) reply.header('content-security-policy', "frame-ancestors 'none'");
    }
    done(null, payload);
  });
}
