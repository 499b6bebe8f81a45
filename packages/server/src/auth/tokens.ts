import { randomBytes, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Db } from '../db/database';

/** Who is calling: the API user and the merchant it belongs to. */
export interface Principal {
  readonly userId: string;
  readonly merchantId: string;
}

/** The spec: "A token lives 5 minutes." */
export const TOKEN_TTL_SECONDS = 300;

const ALGORITHM = 'HS256';
const ISSUER = 'colibri';
const AUDIENCE = 'colibri-api';
const SIGNING_KEY_SETTING = 'token_signing_key';
/** Bound of each token cache, so memory stays flat whatever the traffic. */
const CACHE_LIMIT = 10_000;

/**
 * Access tokens are JWTs signed with HMAC-SHA256 under a key kept in the database, so every process
 * serving one database issues and accepts the same tokens. Verification pins the algorithm, issuer
 * and audience: `alg: none`, other algorithms, tampered payloads and tokens signed with any other key
 * are refused.
 */
export class TokenService {
  /**
   * Verified tokens, by their full text (signature included, so a tampered token never matches), until
   * they expire. A client reuses its token for up to 5 minutes; re-checking the HMAC on every call
   * through WebCrypto costs more than the rest of a simple request.
   */
  private readonly verified = new Map<string, { principal: Principal; expSeconds: number }>();
  /** Tokens issued in the current second: the same principal and second give the same token anyway. */
  private issuedSecond = 0;
  private readonly issued = new Map<string, string>();

  private constructor(private readonly key: CryptoKey) {}

  /**
   * Loads the signing key, creating it on first use. Concurrent first starts agree on one key because
   * the insert yields to whichever row landed first.
   * @example const tokens = await TokenService.load(db);
   */
  static async load(db: Db): Promise<TokenService> {
    await db
      .insertInto('settings')
      .values({ key: SIGNING_KEY_SETTING, value: randomBytes(32).toString('base64') })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await db.selectFrom('settings').select('value').where('key', '=', SIGNING_KEY_SETTING).executeTakeFirstOrThrow();
    const key = await webcrypto.subtle.importKey('raw', Buffer.from(row.value, 'base64'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    return new TokenService(key);
  }

  /** @example const token = await tokens.issue({ userId, merchantId }); */
  async issue(principal: Principal, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
    if (nowSeconds !== this.issuedSecond) {
      this.issuedSecond = nowSeconds;
      this.issued.clear();
    }
    const cacheKey = `${principal.userId}|${principal.merchantId}`;
    const cached = this.issued.get(cacheKey);
    if (cached) return cached;
    const token = await new SignJWT({ mid: principal.merchantId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(principal.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + TOKEN_TTL_SECONDS)
      .sign(this.key);
    if (this.issued.size < CACHE_LIMIT) this.issued.set(cacheKey, token);
    return token;
  }

  /** Returns the principal of a valid token, or null for any invalid, expired or foreign token. @example await tokens.verify(header) */
  async verify(token: string): Promise<Principal | null> {
    const nowSeconds = Date.now() / 1000;
    const known = this.verifiedBefore(token, nowSeconds);
    if (known !== undefined) return known;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || typeof payload.exp !== 'number') return null;
      const principal = { userId: payload.sub, merchantId: payload.mid };
      this.remember(token, principal, payload.exp, nowSeconds);
      return principal;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  /**
   * The answer for a token verified before, without waiting: its principal, null once it has expired,
   * undefined if it was never verified here (then call verify).
   * @example const principal = tokens.verifiedBefore(header) ?? (await tokens.verify(header));
   */
  verifiedBefore(token: string, nowSeconds = Date.now() / 1000): Principal | null | undefined {
    const hit = this.verified.get(token);
    if (!hit) return undefined;
    if (hit.expSeconds > nowSeconds) return hit.principal;
    this.verified.delete(token);
    return null;
  }

  private remember(token: string, principal: Principal, expSeconds: number, nowSeconds: number): void {
    if (this.verified.size >= CACHE_LIMIT) {
      // Evict expired entries first; if the cache is still full, drop the oldest insertions.
      for (const [key, entry] of this.verified) if (entry.expSeconds <= nowSeconds) this.verified.delete(key);
      for (const key of this.verified.keys()) {
        if (this.verified.size < CACHE_LIMIT) break;
        this.verified.delete(key);
      }
    }
    this.verified.set(token, { principal, expSeconds });
  }
}
