import { constantTimeEqual } from '../auth/secrets';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { AUTHENTICATION_TTL_MS } from './states';
import { changeThreeDsStatus, releaseThreeDsClaim, type ThreeDsClaim } from './change-status';
import type { AuthenticationClaims } from '../payments/send-payment';
import { IllegalMoveError } from '../lib/state-machine';
import { isUuid } from '../lib/identifiers';
import { eciValuesOf } from '../processor/eci';

/** The 3DS data a `sendPayment` carries (the spec's `authentication` object). */
export interface PresentedAuthentication {
  readonly cavv: string;
  readonly eci: string;
  readonly version: string;
  readonly dstrans_id: string;
}

/** What the payment is about to charge, to compare with what was authenticated. */
export interface PaymentToAuthenticate {
  readonly merchantId: string;
  readonly cardId: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly now: Date;
}

/**
 * Verifies the 3DS data of a card payment before it is stored, so invented data never reaches the
 * processor as if an issuer had authenticated the customer. Data issued by Colibri's own 3DS server
 * (its directory-server transaction id names one of its authentications) must match that record in
 * every respect: the same merchant, the same card, the same amount and currency, a successful
 * authentication that has not paid yet and is at most an hour old, and the same ECI and CAVV (the
 * CAVV compared in constant time). The record is then claimed (USED, its CAVV erased) by
 * changeThreeDsStatus, whose guarded update lets one authentication pay once even when two payments
 * race. The caller stores the payment next, and undoes the claim with releaseThreeDsClaim if it
 * cannot (change-status.ts).
 *
 * Data issued by another 3DS server (a merchant's own MPI) cannot be checked against a record; it is
 * accepted when well formed (claimExternalAuthentication) and the acquirer reads it: in live mode the
 * connector passes it on (Adyen's mpiData), in sandbox the simulator answers by its ECI.
 * @example const claim = await claimAuthentication(ctx, body.authentication, { merchantId, cardId, amountMinor, currency, now });
 */
export async function claimAuthentication(ctx: AppContext, presented: PresentedAuthentication, payment: PaymentToAuthenticate): Promise<ThreeDsClaim | ExternalClaim> {
  const mismatch = (field: string, why: string) => new ApiError('AUTHENTICATION_MISMATCH', `authentication.${field}: ${why}`);
  const row = isUuid(presented.dstrans_id)
    ? await ctx.db.selectFrom('three_ds_authentications').selectAll().where('dstrans_id', '=', presented.dstrans_id.toLowerCase()).executeTakeFirst()
    : undefined;
  if (!row) return claimExternalAuthentication(ctx, presented, payment);
  // Colibri's server issued it, for another merchant: it can be no other server's, and it cannot pay here.
  if (row.merchant_id !== payment.merchantId) throw mismatch('dstrans_id', "was issued by Colibri's 3DS server for another merchant.");
  if (row.status === 'USED') throw mismatch('dstrans_id', 'the authentication already paid; each authentication pays once.');
  if (row.status !== 'AUTHENTICATED' || !row.authenticated_at || !row.cavv_ciphertext || !row.cavv_key_id) throw mismatch('dstrans_id', 'the authentication did not succeed.');
  if (payment.now.getTime() - row.authenticated_at.getTime() > AUTHENTICATION_TTL_MS) throw mismatch('dstrans_id', 'the authentication is older than 1 hour.');
  if (row.card_id !== payment.cardId || row.card_declined) throw mismatch('dstrans_id', 'the authentication is of another card.');
  if (row.amount_minor !== payment.amountMinor || row.currency !== payment.currency) throw mismatch('dstrans_id', 'the authentication is of another amount.');
  if (row.eci !== presented.eci) throw mismatch('eci', 'does not match the authentication.');
  if (!constantTimeEqual(ctx.secretBox.decrypt(row.cavv_key_id, row.cavv_ciphertext), presented.cavv)) throw mismatch('cavv', 'does not match the authentication.');

  try {
    await changeThreeDsStatus(ctx.db, row, 'USED', payment.now, { cavv_ciphertext: null, cavv_key_id: null });
  } catch (error) {
    // Another payment claimed it between the read and this guarded update.
    if (error instanceof IllegalMoveError) throw mismatch('dstrans_id', 'the authentication already paid; each authentication pays once.');
    throw error;
  }
  return { before: row, usedAt: payment.now };
}

/** The 3DS protocol versions Colibri accepts from another 3DS server (EMV 3-D Secure 2). */
export const EXTERNAL_3DS_VERSIONS: readonly string[] = ['2.1.0', '2.2.0', '2.3.1'];

/** A claimed authentication of another 3DS server: its row, deleted again if the payment is not stored. */
export interface ExternalClaim {
  readonly external: { readonly merchantId: string; readonly dstransId: string };
}

/**
 * The rules for 3DS data of another 3DS server, checked in this order so one bad request always gets
 * the same answer (`00.04.0015`, naming the field): `dstrans_id` a UUID; `version` 2.1.0, 2.2.0 or
 * 2.3.1; `eci` one of the values the card's scheme defines (processor/eci.ts); `cavv` the base64 of
 * exactly 20 bytes (the authentication value's length in every scheme). Then the authentication is
 * claimed for the merchant: a second payment with the same `dstrans_id` answers `00.04.0016`, even
 * when both race (the primary key decides).
 */
async function claimExternalAuthentication(ctx: AppContext, presented: PresentedAuthentication, payment: PaymentToAuthenticate): Promise<ExternalClaim> {
  const malformed = (field: string, why: string) => new ApiError('AUTHENTICATION_MALFORMED', `authentication.${field}: ${why}`);
  if (!isUuid(presented.dstrans_id)) throw malformed('dstrans_id', 'must be a UUID (the directory server transaction id).');
  if (!EXTERNAL_3DS_VERSIONS.includes(presented.version)) throw malformed('version', `must be one of ${EXTERNAL_3DS_VERSIONS.join(', ')}.`);
  const card = await ctx.db.selectFrom('cards').select('scheme').where('id', '=', payment.cardId).where('merchant_id', '=', payment.merchantId).executeTakeFirst();
  const values = eciValuesOf(card?.scheme);
  if (!Object.hasOwn(values, presented.eci)) throw malformed('eci', `must be one of ${Object.keys(values).join(', ')} for a ${card?.scheme ?? 'card'} card.`);
  if (!isCavv(presented.cavv)) throw malformed('cavv', 'must be the base64 of 20 bytes (28 characters).');

  const dstransId = presented.dstrans_id.toLowerCase();
  const inserted = await ctx.db
    .insertInto('external_authentications')
    .values({ merchant_id: payment.merchantId, dstrans_id: dstransId, eci: presented.eci, version: presented.version, claimed_at: payment.now })
    .onConflict((oc) => oc.columns(['merchant_id', 'dstrans_id']).doNothing())
    .returning('dstrans_id')
    .executeTakeFirst();
  if (!inserted) throw new ApiError('AUTHENTICATION_REUSED');
  return { external: { merchantId: payment.merchantId, dstransId } };
}

/** Base64 (standard alphabet, padded) of exactly 20 bytes. */
function isCavv(value: string): boolean {
  return /^[A-Za-z0-9+/]{27}=$/.test(value) && Buffer.from(value, 'base64').length === 20;
}

/**
 * Colibri's 3DS claims as sendPayment takes them (AuthenticationClaims, payments/send-payment.ts):
 * claimAuthentication, undone by releaseThreeDsClaim. The composition root hands it to the payment
 * routes (app.ts), so payments never imports 3DS.
 */
export const threeDsClaims: AuthenticationClaims = {
  async claim(ctx, presented, payment) {
    const claim = await claimAuthentication(ctx, presented, payment);
    if ('external' in claim) {
      const { merchantId, dstransId } = claim.external;
      return { release: () => ctx.db.deleteFrom('external_authentications').where('merchant_id', '=', merchantId).where('dstrans_id', '=', dstransId).execute() };
    }
    return { release: () => releaseThreeDsClaim(ctx.db, claim) };
  },
};
