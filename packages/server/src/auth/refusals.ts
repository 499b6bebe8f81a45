import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import type { TokenService } from './tokens';

/**
 * Why a request's credentials were refused, where HTTP puts it: the spec's 401 body stays exactly as it
 * is (`Access Denied`), and a `WWW-Authenticate` header (RFC 6750, section 3) carries an `error` code and
 * an `error_description` in words. The same reason goes to the log at info level. A request with no
 * credentials at all gets the challenge alone, without an error (RFC 6750, 3.1).
 */

/** The `realm` of each kind of credential. */
const REALMS = { merchant: 'colibri', admin: 'colibri-admin' } as const;

/** An RFC 7235 quoted string: backslash and quote escaped, anything outside printable ASCII dropped. */
function quoted(text: string): string {
  return `"${text.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** @example challenge('merchant', 'invalid_token', 'the access token expired …') // 'Bearer realm="colibri", error="invalid_token", error_description="…"' */
export function challenge(realm: keyof typeof REALMS, error?: 'invalid_request' | 'invalid_token', description?: string): string {
  const parts = [`realm=${quoted(REALMS[realm])}`];
  if (error) parts.push(`error=${quoted(error)}`);
  if (description) parts.push(`error_description=${quoted(description)}`);
  return `Bearer ${parts.join(', ')}`;
}

/** A 401 for a refused merchant request, logged with its reason. */
export function accessDenied(request: FastifyRequest, realm: keyof typeof REALMS, error?: 'invalid_request' | 'invalid_token', description?: string): ApiError {
  if (description) request.log.info({ reason: description }, 'access denied');
  return new ApiError(realm === 'admin' ? 'ADMIN_TOKEN_REQUIRED' : 'ACCESS_DENIED', undefined, { challenge: challenge(realm, error, description) });
}

/**
 * The refusal of a merchant request by what it sent: no token, a token in the wrong header, a token
 * `TokenService.verify` refused (its reason from `explain`), or a valid token of a disabled user.
 * @example done(await merchantRefusal(request, ctx.tokens, token, 'invalid'))
 */
export async function merchantRefusal(request: FastifyRequest, tokens: TokenService, token: string | undefined, why: 'invalid' | 'disabled'): Promise<ApiError> {
  if (token === undefined || token === '') {
    if (request.headers.authorization !== undefined) {
      return accessDenied(request, 'merchant', 'invalid_request', 'send the access token in the X-Auth-Token header, not Authorization (which only /admin/* reads)');
    }
    return accessDenied(request, 'merchant');
  }
  if (why === 'disabled') return accessDenied(request, 'merchant', 'invalid_token', 'the access token is of a user or merchant that has been disabled');
  return accessDenied(request, 'merchant', 'invalid_token', await tokens.explain(token));
}
