import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppContext } from '../context';
import { challenge } from './refusals';
import { ApiError } from '../http/errors';
import { consumeOrRefuse, limiterKey, refuseIfSpent, sharedLimiter, SWEEPER_NAME } from '../lib/shared-limiter';
import type { Authenticator } from './authenticate';
import type { UserResource } from './user-resource';

/**
 * The limits of every exchange of an API key and secret: `POST /auth` and the dashboard's sign-in
 * (`POST /dashboard/api/session`) count in the same counters, so neither door doubles the other's
 * attempts. docs/security.md, "Login limits":
 * - failures per API key and client address, and per client address whatever the key (never per key
 *   alone, so another address's failures never lock the key's owner out);
 * - successes per API key, a high ceiling against runaway clients.
 *
 * The counters live in the database (lib/shared-limiter.ts): on PostgreSQL every process of the
 * service counts in the same rows, so N processes behind a load balancer allow the configured number
 * of attempts, not N times it. Only these exchanges pay for it; requests with an access token never
 * touch a counter.
 */
export class LoginLimits {
  private readonly failuresPerKeyAndAddress: RateLimiterAbstract;
  private readonly failuresPerAddress: RateLimiterAbstract;
  private readonly successesPerKey: RateLimiterAbstract;

  constructor(ctx: AppContext) {
    const limits = ctx.config.limits;
    this.failuresPerKeyAndAddress = sharedLimiter(ctx.db, ctx.engine, { name: 'auth-fail-ka', points: limits.authFailuresPerKeyAndAddress, windowSeconds: limits.authFailureWindowSeconds });
    this.failuresPerAddress = sharedLimiter(ctx.db, ctx.engine, { name: SWEEPER_NAME, points: limits.authFailuresPerAddress, windowSeconds: limits.authFailureWindowSeconds });
    this.successesPerKey = sharedLimiter(ctx.db, ctx.engine, { name: 'auth-ok-key', points: limits.authSuccessesPerKeyPerMinute, windowSeconds: 60 });
  }

  /**
   * The user of a key and secret from a client address; 401 when they do not match (counted as a
   * failure), 429 with Retry-After when the address, or the key at that address, has used up its
   * failures or the key its successes. A refusal is decided before the secret is checked.
   * @example const user = await limits.signIn(authenticator, apiKey, apiSecret, request.ip);
   */
  async signIn(authenticator: Authenticator, apiKey: string, apiSecret: string, address: string): Promise<UserResource> {
    const keyAndAddress = limiterKey(apiKey, address);
    const fromAddress = limiterKey(address);
    await Promise.all([refuseIfSpent(this.failuresPerAddress, fromAddress), refuseIfSpent(this.failuresPerKeyAndAddress, keyAndAddress)]);
    const user = await authenticator.authenticate(apiKey, apiSecret);
    if (!user) {
      await Promise.all([this.failuresPerAddress.penalty(fromAddress), this.failuresPerKeyAndAddress.penalty(keyAndAddress)]);
      // Which of key and secret was wrong stays unsaid (authenticate.ts): keys are not to be probed.
      throw new ApiError('ACCESS_DENIED', undefined, {
        challenge: challenge('merchant', 'invalid_request', 'the API key and secret (form fields apiKey and apiSecret) do not match an enabled user'),
      });
    }
    await consumeOrRefuse(this.successesPerKey, limiterKey(apiKey));
    return user;
  }
}
