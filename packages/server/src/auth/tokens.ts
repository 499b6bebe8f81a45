import { randomBytes } from 'node:crypto';
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

/**
 * Access tokens are JWTs signed with HMAC-SHA256 under a key kept in the database, so every process
 * serving one database issues and accepts the same tokens. Verification pins the algorithm, issuer
 * and audience: `alg: none`, other algorithms, tampered payloads and tokens signed with any other key
 * are refused.
 */
export class TokenService {
  private constructor(private readonly key: Uint8Array) {}

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
    return new TokenService(Buffer.from(row.value, 'base64'));
  }

  /** @example const token = await tokens.issue({ userId, merchantId }); */
  async issue(principal: Principal, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
    return new SignJWT({ mid: principal.merchantId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(principal.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + TOKEN_TTL_SECONDS)
      .sign(this.key);
  }

  /** Returns the principal of a valid token, or null for any invalid, expired or foreign token. @example await tokens.verify(header) */
  async verify(token: string): Promise<Principal | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string') return null;
      return { userId: payload.sub, merchantId: payload.mid };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }
}
