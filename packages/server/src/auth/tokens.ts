import { randomBytes, webcrypto } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { SecretBox } from '../lib/secret-box';

/** Who is calling: the API user and the merchant it belongs to. */
export interface Principal {
  readonly userId: string;
  readonly merchantId: string;
}

/** The spec: "A token lives 5 minutes." */
export const TOKEN_TTL_SECONDS = 300;
/** How far ahead of this process's clock a token's issue time may be (another process's clock). */
const CLOCK_SKEW_SECONDS = 60;

/** A fresh key id. @example newKid() // 'k_Hc2…' */
function newKid(): string {
  return `k_${randomBytes(9).toString('base64url')}`;
}

const ALGORITHM = 'HS256';
const ISSUER = 'colibri';
const AUDIENCE = 'colibri-api';
/** Bound of each token cache, so memory stays flat whatever the traffic. */
const CACHE_LIMIT = 10_000;
/** How often a process looks for a signing key rotated by another process. */
const KEY_RELOAD_MS = 60_000;
/** A token with an unknown key id makes the process look for new keys at most this often. */
const UNKNOWN_KID_RELOAD_MS = 1_000;
/** A key superseded longer ago than this is deleted: every token it signed has expired by then. */
const RETIRED_KEY_KEEP_MS = 2 * TOKEN_TTL_SECONDS * 1000;

/** A signing key and its id, as the token header names it. */
interface SigningKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

/** Where signing keys come from: the database (encrypted with the master key) or the configuration. */
type KeySource =
  | { readonly kind: 'database'; readonly db: Db; readonly cipher: Pick<SecretBox, 'encrypt' | 'decrypt' | 'currentKeyId'> }
  | { readonly kind: 'configured'; readonly keys: readonly { kid: string; secret: Buffer }[] };

/**
 * Parses `COLIBRI_TOKEN_SIGNING_KEYS`: comma-separated `kid:base64key` pairs, the first of which signs.
 * @example parseSigningKeys('k2:q83…=,k1:Zx0…=') // [{ kid: 'k2', secret }, { kid: 'k1', secret }]
 */
export function parseSigningKeys(value: string): { kid: string; secret: Buffer }[] {
  return value
    .split(',')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '')
    .map((pair) => {
      const colon = pair.indexOf(':');
      const kid = pair.slice(0, colon);
      const secret = Buffer.from(pair.slice(colon + 1), 'base64');
      if (colon < 1 || !/^[A-Za-z0-9_-]{1,64}$/.test(kid)) throw new Error('COLIBRI_TOKEN_SIGNING_KEYS: each key is kid:base64, the kid of letters, digits, - and _');
      if (secret.length < 32) throw new Error(`COLIBRI_TOKEN_SIGNING_KEYS: key ${kid} must have at least 32 bytes`);
      return { kid, secret };
    });
}

function importKey(secret: Buffer): Promise<CryptoKey> {
  return webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/**
 * Access tokens are JWTs signed with HMAC-SHA256. Every token names its signing key in the `kid`
 * header; keys are either supplied by configuration (`COLIBRI_TOKEN_SIGNING_KEYS`) or kept in the
 * database encrypted with the master key, so a copy of the database alone cannot mint tokens, while
 * every process serving one database issues and accepts the same tokens. Keys rotate: the newest key
 * signs, older keys verify until the tokens they signed have expired.
 *
 * Verification pins the algorithm, issuer and audience, and refuses a token whose key id is unknown
 * or whose lifetime (exp − iat) exceeds 5 minutes: a token minted with a stolen key for a year is
 * refused like a forged one. `alg: none`, other algorithms, tampered payloads and tokens signed with
 * any other key are refused.
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
  private keys = new Map<string, CryptoKey>();
  private current: SigningKey;
  private loadedAt = 0;
  private reloading: Promise<void> | null = null;

  private constructor(private readonly source: KeySource, loaded: { keys: Map<string, CryptoKey>; current: SigningKey }) {
    this.keys = loaded.keys;
    this.current = loaded.current;
    this.loadedAt = Date.now();
  }

  /**
   * Loads the signing keys: the configured ones, or the database's, creating the first key on first
   * use. Concurrent first starts agree on one key because only an empty table takes the first key.
   * @example const tokens = await TokenService.load(db, secretBox, config.tokenSigningKeys);
   */
  static async load(db: Db, cipher: Pick<SecretBox, 'encrypt' | 'decrypt' | 'currentKeyId'>, configured?: string): Promise<TokenService> {
    const source: KeySource = configured ? { kind: 'configured', keys: parseSigningKeys(configured) } : { kind: 'database', db, cipher };
    if (source.kind === 'database') {
      const secret = randomBytes(32);
      const { keyId, ciphertext } = cipher.encrypt(secret.toString('base64'));
      // Inserted only into an empty table, so two processes starting together keep one first key.
      await sql`
        insert into token_signing_keys (kid, key_ciphertext, master_key_id)
        select ${newKid()}, ${ciphertext}, ${keyId}
        where not exists (select 1 from token_signing_keys)
        on conflict (kid) do nothing`.execute(db);
    }
    return new TokenService(source, await TokenService.readKeys(source));
  }

  /** The id of the key that signs new tokens. @example tokens.currentKeyId // 'k_4f…' */
  get currentKeyId(): string {
    return this.current.kid;
  }

  /**
   * Adds a new signing key, which signs from now on, and deletes keys superseded long enough ago that
   * no token they signed is still alive. Other processes pick the new key up within a minute (and at
   * once when they meet a token it signed). Only keys kept in the database rotate here; configured
   * keys rotate by changing the configuration.
   * @example const kid = await tokens.rotate();
   */
  async rotate(): Promise<string> {
    if (this.source.kind !== 'database') throw new Error('token signing keys are configured (COLIBRI_TOKEN_SIGNING_KEYS); rotate them there');
    const { db, cipher } = this.source;
    const kid = newKid();
    const { keyId, ciphertext } = cipher.encrypt(randomBytes(32).toString('base64'));
    await db.insertInto('token_signing_keys').values({ kid, key_ciphertext: ciphertext, master_key_id: keyId }).execute();
    await sql`
      delete from token_signing_keys as old
      where exists (select 1 from token_signing_keys as newer
                    where newer.created_at > old.created_at and newer.created_at < now() - ${`${RETIRED_KEY_KEEP_MS} milliseconds`}::interval)`.execute(db);
    // A read already in flight may predate the insert: wait for it, then read again.
    await this.reloading?.catch(() => undefined);
    await this.reload();
    return kid;
  }

  private static async readKeys(source: KeySource): Promise<{ keys: Map<string, CryptoKey>; current: SigningKey }> {
    const secrets =
      source.kind === 'configured'
        ? source.keys
        : (await source.db.selectFrom('token_signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute()).map((row) => ({
            kid: row.kid,
            secret: Buffer.from(source.cipher.decrypt(row.master_key_id, row.key_ciphertext), 'base64'),
          }));
    const first = secrets[0];
    if (!first) throw new Error('no token signing key is configured');
    const keys = new Map<string, CryptoKey>();
    for (const { kid, secret } of secrets) keys.set(kid, await importKey(secret));
    const currentKey = keys.get(first.kid);
    if (!currentKey) throw new Error('invariant: the current signing key was imported');
    return { keys, current: { kid: first.kid, key: currentKey } };
  }

  /** Reads the keys again; concurrent callers share one read. */
  private reload(): Promise<void> {
    this.reloading ??= TokenService.readKeys(this.source)
      .then((loaded) => {
        // Tokens issued in this second by the key that no longer signs are not handed out again.
        if (loaded.current.kid !== this.current.kid) this.issued.clear();
        this.keys = loaded.keys;
        this.current = loaded.current;
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.reloading = null;
      });
    return this.reloading;
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
    // A key rotated by another process is picked up in the background; this token uses the current one.
    if (Date.now() - this.loadedAt > KEY_RELOAD_MS && !this.reloading) this.reload().catch(() => undefined);
    const token = await new SignJWT({ mid: principal.merchantId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT', kid: this.current.kid })
      .setSubject(principal.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + TOKEN_TTL_SECONDS)
      .sign(this.current.key);
    if (this.issued.size < CACHE_LIMIT) this.issued.set(cacheKey, token);
    return token;
  }

  /** Returns the principal of a valid token, or null for any invalid, expired or foreign token. @example await tokens.verify(header) */
  async verify(token: string): Promise<Principal | null> {
    const nowSeconds = Date.now() / 1000;
    const known = this.verifiedBefore(token, nowSeconds);
    if (known !== undefined) return known;
    try {
      const { payload } = await jwtVerify(token, (header) => this.keyOf(header.kid), {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ['iat', 'exp', 'sub'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
      // Colibri issues tokens for 5 minutes; a longer-lived token was not issued by Colibri.
      if (payload.exp - payload.iat > TOKEN_TTL_SECONDS || payload.iat > nowSeconds + CLOCK_SKEW_SECONDS) return null;
      const principal = { userId: payload.sub, merchantId: payload.mid };
      this.remember(token, principal, payload.exp, nowSeconds);
      return principal;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  }

  /**
   * Why a token `verify` refused is refused, in words for the caller (the WWW-Authenticate header's
   * error_description, and the log). Called only after a refusal, so the common path pays nothing.
   * @example await tokens.explain('cs_…') // 'this is an API secret, not an access token: …'
   */
  async explain(token: string, nowSeconds = Date.now() / 1000): Promise<string> {
    const exchange = 'exchange the API key and secret for an access token at POST /auth';
    if (token.startsWith('cs_')) return `this is an API secret, not an access token: ${exchange}`;
    if (token.startsWith('ck_')) return `this is an API key, not an access token: ${exchange}`;
    if (token.startsWith('adm_')) return 'this is the admin token: it goes in Authorization: Bearer to /admin/*, and merchant calls take an access token';
    let kid: string | undefined;
    let payload: ReturnType<typeof decodeJwt>;
    try {
      kid = decodeProtectedHeader(token).kid;
      payload = decodeJwt(token);
    } catch {
      return `malformed access token (not a JWT): ${exchange}`;
    }
    if (payload.iss !== ISSUER || payload.aud !== AUDIENCE) return 'the access token was not issued by Colibri';
    if (typeof payload.exp === 'number' && payload.exp <= nowSeconds) {
      return `the access token expired at ${new Date(payload.exp * 1000).toISOString()} (tokens live ${TOKEN_TTL_SECONDS / 60} minutes): get a new one at POST /auth, or use the refresh-token header of the last answer`;
    }
    if (kid === undefined || !this.keys.has(kid)) return 'the access token was signed with a key this service does not know (another installation, or a key retired since)';
    return 'the access token is not valid: its signature, lifetime or claims were altered';
  }

  /** The key a token names; an unknown key id makes this process look for new keys (at most once a second). */
  private async keyOf(kid: string | undefined): Promise<CryptoKey> {
    if (kid === undefined) throw new joseErrors.JWKSNoMatchingKey();
    const known = this.keys.get(kid);
    if (known) return known;
    if (Date.now() - this.loadedAt >= UNKNOWN_KID_RELOAD_MS) await this.reload();
    const found = this.keys.get(kid);
    if (!found) throw new joseErrors.JWKSNoMatchingKey();
    return found;
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
