import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { principalOf } from '../context';

/**
 * The spec's `refresh_token`: a fresh 5-minute token for the caller, returned by payment responses
 * so a client that keeps calling never has to go back to `POST /auth`.
 * @example return { payment_token, refresh_token: await refreshToken(ctx, request), … };
 */
export function refreshToken(ctx: AppContext, request: FastifyRequest): Promise<string> {
  return ctx.tokens.issue(principalOf(request));
}
