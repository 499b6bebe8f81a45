import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from './secrets';
import type { Principal } from './tokens';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';

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
    if (auth === 'admin') return done(isAdmin(request, ctx.adminToken) ? undefined : new ApiError('ADMIN_TOKEN_REQUIRED'));
    const header = request.headers['x-auth-token'];
    const token = Array.isArray(header) ? undefined : header;
    const admit = (principal: Principal, allowed: boolean) => {
      if (!allowed) return done(new ApiError('ACCESS_DENIED'));
      request.principal = principal;
      done();
    };
    // A valid token of a disabled merchant or user is refused (access-list.ts): that is what
    // ends access within seconds, and what stops refresh tokens from chaining.
    const accept = (principal: Principal | null) => {
      if (!principal) return done(new ApiError('ACCESS_DENIED'));
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

function isAdmin(request: FastifyRequest, adminToken: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  return match?.[1] !== undefined && constantTimeEqual(match[1], adminToken);
}
