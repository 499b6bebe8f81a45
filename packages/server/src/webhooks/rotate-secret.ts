import { sql } from 'kysely';
import { newWebhookSecret } from '../auth/secrets';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { adoptCreationSecret, MAX_SIGNING_SECRETS, SECRET_OVERLAP_MS } from './signing-secrets';

/**
 * `POST /webhooks/secret/rotate`: issues a new signing secret. The previous one keeps signing for
 * the overlap (24 hours), so callbacks in that time carry both signatures and the merchant can deploy
 * the new secret without rejecting a single callback. At most three secrets sign at once: rotating
 * again while two older secrets are still in their overlap ends the oldest one's overlap now.
 * @example const { webhook_secret } = await rotateSecret(ctx, merchantId); // 'whsec_…', shown only here
 */
export async function rotateSecret(ctx: AppContext, merchantId: string): Promise<{ webhook_secret: string }> {
  const secret = newWebhookSecret();
  const { keyId, ciphertext } = ctx.secretBox.encrypt(secret);
  await ctx.db.transaction().execute(async (trx) => {
    // Locks the merchant row too, so concurrent rotations of one merchant run one after the other.
    await adoptCreationSecret(trx, ctx.secretBox, merchantId);
    await replaceSigningSecret(trx, { merchantId, endpointId: null }, { keyId, ciphertext });
  });
  return { webhook_secret: secret };
}

/**
 * Makes an encrypted secret the one that signs for a merchant (`endpointId` null) or for one of its
 * webhook endpoints, and starts the overlap of the ones before it (at most three sign at once). Run in
 * the caller's transaction, after locking the row that serialises rotations of this signer.
 * @example await replaceSigningSecret(trx, { merchantId, endpointId }, ctx.secretBox.encrypt(secret));
 */
export async function replaceSigningSecret(
  trx: Db,
  signer: { merchantId: string; endpointId: string | null },
  encrypted: { keyId: string; ciphertext: string },
): Promise<void> {
  const mine = (endpointId: string | null) => (endpointId === null ? sql<boolean>`endpoint_id is null` : sql<boolean>`endpoint_id = ${endpointId}::uuid`);
  const overlapEnds = sql<Date>`now() + ${`${SECRET_OVERLAP_MS} milliseconds`}::interval`;
  await trx
    .updateTable('webhook_secrets')
    .set({ expires_at: overlapEnds })
    .where('merchant_id', '=', signer.merchantId)
    .where(mine(signer.endpointId))
    .where('expires_at', 'is', null)
    .execute();
  const stillSigning = await trx
    .selectFrom('webhook_secrets')
    .select('id')
    .where('merchant_id', '=', signer.merchantId)
    .where(mine(signer.endpointId))
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'desc')
    .execute();
  const ended = stillSigning.slice(MAX_SIGNING_SECRETS - 1).map((s) => s.id);
  if (ended.length > 0) await trx.updateTable('webhook_secrets').set({ expires_at: sql<Date>`now()` }).where('id', 'in', ended).execute();
  await trx
    .insertInto('webhook_secrets')
    .values({ merchant_id: signer.merchantId, endpoint_id: signer.endpointId, key_id: encrypted.keyId, secret_ciphertext: encrypted.ciphertext, expires_at: null })
    .execute();
}
