import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../auth/secrets';
import type { App, AppContext } from '../context';
import { ApiError } from './errors';

/**
 * Authenticates every request before its body is read. Routes are merchant-authenticated unless
 * their config says `auth: 'public'` or `auth: 'admin'`; unknown paths fall through to the 404
 * handler without a token, so a typo is reported as a typo.
 */
export function installAuthHook(app: App, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === undefined) return;
    const auth = request.routeOptions.config?.auth ?? 'merchant';
    if (auth === 'public') return;
    if (auth === 'admin') {
      if (!isAdmin(request, ctx.adminToken)) throw new ApiError('ADMIN_TOKEN_REQUIRED');
      return;
    }
    const header = request.headers['x-auth-token'];
    const token = Array.isArray(header) ? undefined : header;
    const principal = token ? await ctx.tokens.verify(token) : null;
    if (!principal) throw new ApiError('ACCESS_DENIED');
    request.principal = principal;
  });
}

function isAdmin(request: FastifyRequest, adminToken: string): boolean {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/.exec(header);
  return match?.[1] !== undefined && constantTimeEqual(match[1], adminToken);
}
