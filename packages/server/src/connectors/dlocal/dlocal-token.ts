import { createHash } from 'node:crypto';
import { ProcessorUnavailableError } from '../../processor/processor';

/** What an access token needs: where dLocal is, and the OAuth credentials of the Payouts v3 integration. */
export interface DlocalTokenOptions {
  readonly apiUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly timeoutMs: number;
}

/** dLocal refused the client credentials (a 4xx from `/oauth/token`); nothing was sent to the Payouts API. */
export class DlocalTokenRefused extends Error {
  constructor(readonly statusCode: number) {
    super(`dLocal refused the client credentials (HTTP ${statusCode} from /oauth/token)`);
    this.name = 'DlocalTokenRefused';
  }
}

interface CachedToken {
  readonly token: string;
  /** When to ask for the next one: shortly before dLocal lets this one expire. */
  readonly renewAt: number;
}

/** One token per credential set (API URL, client id and secret), shared by every client built from it. */
const cache = new Map<string, CachedToken>();
const inFlight = new Map<string, Promise<CachedToken>>();

function keyOf(options: DlocalTokenOptions): string {
  // The secret is part of the key (a rotated secret gets a fresh token) but is kept only as a digest.
  return createHash('sha256').update(`${options.apiUrl}\u0000${options.clientId}\u0000${options.clientSecret}`).digest('hex');
}

/**
 * How long before its expiry a token is renewed: a quarter of its life, at most 30 seconds (dLocal's tokens
 * live 180 seconds: renewed after 150).
 * @example renewAfterMs(180) // 150000
 */
export function renewAfterMs(expiresInSeconds: number): number {
  const lifeMs = expiresInSeconds * 1000;
  return lifeMs - Math.min(30_000, lifeMs / 4);
}

/**
 * An access token of the OAuth2 client-credentials flow (dLocal's "Security" page of Payouts v3):
 * `POST {api_url}/oauth/token` with `{grant_type: "client_credentials", client_id, client_secret}`, answered
 * `{access_token, scope, expires_in, token_type: "Bearer"}`. Kept per credential set until shortly before it
 * expires; concurrent callers share one request. `fresh` drops the kept token first (after a 401).
 * Neither the secret nor the token is ever logged or put in an error message.
 */
export async function accessToken(options: DlocalTokenOptions, fresh = false, now: () => number = Date.now): Promise<string> {
  const key = keyOf(options);
  const kept = cache.get(key);
  if (fresh) cache.delete(key);
  else if (kept && now() < kept.renewAt) return kept.token;
  let pending = inFlight.get(key);
  if (!pending) {
    pending = requestToken(options, now).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  const got = await pending;
  cache.set(key, got);
  return got.token;
}

/** Forgets every kept token (tests). */
export function forgetDlocalTokens(): void {
  cache.clear();
}

async function requestToken(options: DlocalTokenOptions, now: () => number): Promise<CachedToken> {
  const issuedAt = now();
  let response: Response;
  try {
    response = await fetch(`${options.apiUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'Colibri' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret }),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch {
    // Whatever became of the token request, no payout request has left yet.
    throw new ProcessorUnavailableError('dLocal access token');
  }
  const text = await response.text().catch(() => '');
  if (response.status >= 400 && response.status < 500 && response.status !== 429) throw new DlocalTokenRefused(response.status);
  if (!response.ok) throw new ProcessorUnavailableError('dLocal access token');
  let answer: { access_token?: unknown; expires_in?: unknown; token_type?: unknown };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new ProcessorUnavailableError('dLocal access token');
  }
  const expiresIn = Number(answer.expires_in);
  if (typeof answer.access_token !== 'string' || answer.access_token === '' || !(expiresIn > 0) || (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer')) {
    throw new ProcessorUnavailableError('dLocal access token');
  }
  return { token: answer.access_token, renewAt: issuedAt + renewAfterMs(expiresIn) };
}
