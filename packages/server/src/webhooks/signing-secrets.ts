import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { SecretBox } from '../lib/secret-box';

/**
 * Custody of the merchants' signing secrets. Signing needs a secret in clear, so it cannot be hashed
 * like an API secret; it is encrypted at rest with the secret box instead (AES-256-GCM under
 * COLIBRI_MASTER_KEY), so a copy of the database alone cannot forge callbacks.
 *
 * A merchant's first secret is written by merchant creation into `merchants.webhook_secret`, in
 * clear, because that code has no cipher at hand. It is moved into `webhook_secrets`, encrypted, the
 * first time it is needed (a callback or a rotation) and by a background sweep within a minute of
 * creation, whichever comes first; the column is then emptied.
 */

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;
/** Secrets that sign at once at most: the current one and two previous ones still in their overlap. */
export const MAX_SIGNING_SECRETS = 3;

export interface StoredSecret {
  readonly key_id: string;
  readonly secret_ciphertext: string;
}

const decrypted = new Map<string, string>();
const MAX_CACHED = 10_000;

/**
 * Decrypts a stored secret; the clear text is kept in memory so a busy merchant's secret is not
 * decrypted for every callback.
 * @example const secret = revealSecret(ctx.secretBox, row) // 'whsec_…'
 */
export function revealSecret(cipher: SecretBox, stored: StoredSecret): string {
  let secret = decrypted.get(stored.secret_ciphertext);
  if (secret === undefined) {
    secret = cipher.decrypt(stored.key_id, stored.secret_ciphertext);
    if (decrypted.size >= MAX_CACHED) decrypted.clear();
    decrypted.set(stored.secret_ciphertext, secret);
  }
  return secret;
}

/** A merchant's own secrets (not its endpoints') that sign now, newest first. @example await activeSecrets(db, merchantId) */
export async function activeSecrets(db: Db, merchantId: string): Promise<StoredSecret[]> {
  return db
    .selectFrom('webhook_secrets')
    .select(['key_id', 'secret_ciphertext'])
    .where('merchant_id', '=', merchantId)
    .where('endpoint_id', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .orderBy('created_at', 'desc')
    .limit(MAX_SIGNING_SECRETS)
    .execute();
}

/**
 * Moves a merchant's creation secret from `merchants.webhook_secret` into `webhook_secrets`,
 * encrypted, unless that happened already. Run inside a transaction: the merchant row is locked so
 * two workers (or a worker and a rotation) move it once.
 * @example await db.transaction().execute((trx) => adoptCreationSecret(trx, ctx.secretBox, merchantId));
 */
export async function adoptCreationSecret(trx: Db, cipher: SecretBox, merchantId: string): Promise<void> {
  const merchant = await trx
    .selectFrom('merchants')
    .select(['webhook_secret', 'created_at'])
    .where('id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
  if (!merchant || !merchant.webhook_secret.startsWith('whsec_')) return;
  const existing = await trx.selectFrom('webhook_secrets').select('id').where('merchant_id', '=', merchantId).where('endpoint_id', 'is', null).limit(1).executeTakeFirst();
  if (!existing) {
    const { keyId, ciphertext } = cipher.encrypt(merchant.webhook_secret);
    await trx
      .insertInto('webhook_secrets')
      .values({ merchant_id: merchantId, key_id: keyId, secret_ciphertext: ciphertext, created_at: merchant.created_at, expires_at: null })
      .execute();
  }
  await trx.updateTable('merchants').set({ webhook_secret: '' }).where('id', '=', merchantId).execute();
}

/**
 * The background sweep: moves creation secrets still in clear into encrypted custody, and deletes
 * secrets whose overlap has ended (they can no longer sign, so keeping them only keeps key material).
 * @example await secureSigningSecrets(ctx.db, ctx.secretBox)
 */
export async function secureSigningSecrets(db: Db, cipher: SecretBox, limit = 100): Promise<number> {
  const waiting = await db.selectFrom('merchants').select('id').where('webhook_secret', 'like', 'whsec\\_%').limit(limit).execute();
  for (const merchant of waiting) {
    await db.transaction().execute((trx) => adoptCreationSecret(trx, cipher, merchant.id));
  }
  await db.deleteFrom('webhook_secrets').where('expires_at', '<', sql<Date>`now()`).execute();
  return waiting.length;
}
