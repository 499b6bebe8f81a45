import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from './secrets';
import type { Principal } from './tokens';
import type { App, AppContext } from '../context';
import { accessDenied, merchantRefusal } from './refusals';

/**
 * Authenticates every request before its body is read. Routes are merchant-authenticated unless
 * their config says `auth: 'public'` or `auth: 'admin'`; unknown paths fall through to the 404
 * handler without a token, so a typo is reported as a typo.
 */
export function installAuthHook(app: App, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  // Callback-style: a token verified before (the common case) is answered without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.url === undefined) return done();
    const auth = request.routeOptions.config?.auth ?? 'merchant';
    if (auth === 'public') return done();
    if (auth === 'admin') return done(isAdmin(request, ctx.adminToken) ? undefined : adminRefusal(request));
    const header = request.headers['x-auth-token'];
    const token = Array.isArray(header) ? undefined : header;
    // A refusal says why in WWW-Authenticate (refusals.ts); working it out costs only the refused.
    const refuse = (why: 'invalid' | 'disabled') => merchantRefusal(request, ctx.tokens, token, why).then(done, done);
    const admit = (principal: Principal, allowed: boolean) => {
      if (!allowed) return refuse('disabled');
      request.principal = principal;
      done();
    };
    // A valid token of a disabled merchant or user is refused (access-list.ts): that is what
    // ends access within seconds, and what stops refresh tokens from chaining.
    const accept = (principal: Principal | null) => {
      if (!principal) return refuse('invalid');
      const allowed = ctx.access.allows(principal);
      if (allowed !== undefined) return admit(principal, allowed);
      ctx.access.check(principal).then((checked) => admit(principal, checked), done);
    };
    if (!token) return accept(null);
    const known = ctx.tokens.verifiedBefore(token);
    if (known !== undefined) return accept(known);
    ctx.tokens.verify(token).then(accept, done);
  });
}

/** Why an /admin/* request is refused: no Authorization, another scheme, or a wrong token. */
function adminRefusal(request: FastifyRequest) {
  const header = request.headers.authorization;
  if (header === undefined) {
    return request.headers['x-auth-token'] !== undefined
      ? accessDenied(request, 'admin', 'invalid_request', 'admin calls take the admin token in Authorization: Bearer, not a merchant access token in X-Auth-Token')
      : accessDenied(request, 'admin');
  }
  if (!/^Bearer ./.test(header)) return accessDenied(request, 'admin', 'invalid_request', 'Authorization must be "Bearer <admin token>"');
  return accessDenied(request, 'admin', 'invalid_token', 'the admin token is not this service\'s (COLIBRI_ADMIN_TOKEN, or ./data/admin-token)');
}

function isAdmin(request: FastifyRequest, adminToken: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  return match?.[1] !== undefined && constantTimeEqual(match[1], adminToken);
}
