import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The secret box: every secret Colibri keeps at rest under the master key goes in it — card numbers,
 * 3DS CAVVs, webhook signing secrets, token signing keys, card-encryption private keys, connector
 * credentials and stored idempotent answers — and its keyed digest fingerprints idempotent requests.
 * AES-256-GCM (authenticated: a flipped bit fails to decrypt rather than yielding another value), a fresh
 * 96-bit nonce per record, and the id of the key stored beside each ciphertext so keys can be rotated:
 * new records use the current key, old ones decrypt with the key their id names. Node's built-in crypto
 * does this directly; no library adds anything here.
 */
export interface SecretBox {
  /** @example const { keyId, ciphertext } = box.encrypt('4111111111111111') */
  encrypt(plaintext: string): { keyId: string; ciphertext: string };
  /** @example box.decrypt(row.key_id, row.number_ciphertext) */
  decrypt(keyId: string, ciphertext: string): string;
  readonly currentKeyId: string;
  /**
   * A keyed digest (HMAC-SHA256 under a key derived from the master key) for fingerprints of data that
   * may contain card numbers, such as idempotency request hashes: unlike a plain hash it cannot be
   * brute-forced by someone holding only the database.
   * @example box.keyedDigest('idempotency', body)
   */
  keyedDigest(purpose: string, data: string): string;
}

/** A key's id: the first 16 hex digits of its SHA-256, so the same key always has the same id. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function parseKey(base64: string, source: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${source} must be 32 bytes in base64 (got ${key.length} bytes)`);
  return key;
}

/**
 * Builds a box over a current key and older decrypt-only keys.
 * @example const box = createSecretBox(currentKey, [previousKey]);
 */
export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  const keys = new Map<string, Buffer>([...previous, current].map((k) => [keyIdOf(k), k]));
  const currentKeyId = keyIdOf(current);
  const digestKey = createHmac('sha256', current).update('colibri keyed digest v1').digest();
  return {
    currentKeyId,
    keyedDigest(purpose, data) {
      return createHmac('sha256', digestKey).update(purpose).update('\n').update(data).digest('hex');
    },
    encrypt(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, nonce);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { keyId: currentKeyId, ciphertext: Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64') };
    },
    decrypt(keyId, ciphertext) {
      const key = keys.get(keyId);
      if (!key) throw new Error(`master key ${keyId} is not configured`);
      const raw = Buffer.from(ciphertext, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The configured box: the master key (COLIBRI_MASTER_KEY, with COLIBRI_PREVIOUS_MASTER_KEYS,
 * comma-separated, for rotation), or in sandbox a key generated once into the data directory, which
 * `dataDir` creates when asked.
 * @example const box = loadSecretBox({ masterKey: config.masterKey, dataDir: () => ensureDataDir(config) });
 */
export function loadSecretBox(source: { masterKey: string | undefined; dataDir: () => string }): SecretBox {
  const previous = (process.env.COLIBRI_PREVIOUS_MASTER_KEYS ?? '')
    .split(',')
    .filter((k) => k.trim() !== '')
    .map((k) => parseKey(k, 'COLIBRI_PREVIOUS_MASTER_KEYS'));
  if (source.masterKey) return createSecretBox(parseKey(source.masterKey, 'COLIBRI_MASTER_KEY'), previous);
  const file = join(source.dataDir(), 'master.key');
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return createSecretBox(parseKey(readFileSync(file, 'utf8'), file), previous);
}
