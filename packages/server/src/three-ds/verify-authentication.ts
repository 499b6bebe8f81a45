import { constantTimeEqual } from '../auth/secrets';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { AUTHENTICATION_TTL_MS } from './states';
import { changeThreeDsStatus, releaseThreeDsClaim, type ThreeDsClaim } from './change-status';
import type { AuthenticationClaims } from '../payments/send-payment';
import { IllegalMoveError } from '../lib/state-machine';
import { isUuid } from '../lib/identifiers';

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
 * Data issued by another 3DS server can only be verified by the processor, through its connector; in
 * sandbox mode Colibri's simulated 3DS server is the only one, so such data is refused there.
 * Returns null when the processor is left to verify.
 * @example const claim = await claimAuthentication(ctx, body.authentication, { merchantId, cardId, amountMinor, currency, now });
 */
export async function claimAuthentication(ctx: AppContext, presented: PresentedAuthentication, payment: PaymentToAuthenticate): Promise<ThreeDsClaim | null> {
  const mismatch = (field: string, why: string) => new ApiError('AUTHENTICATION_MISMATCH', `authentication.${field}: ${why}`);
  const row = isUuid(presented.dstrans_id)
    ? await ctx.db.selectFrom('three_ds_authentications').selectAll().where('dstrans_id', '=', presented.dstrans_id.toLowerCase()).executeTakeFirst()
    : undefined;
  if (!row) {
    if (ctx.config.mode === 'sandbox') throw mismatch('dstrans_id', "was not issued by Colibri's 3DS server, the only one in sandbox mode.");
    return null;
  }
  // Another merchant's authentication answers like an unknown one, revealing nothing.
  if (row.merchant_id !== payment.merchantId) throw mismatch('dstrans_id', "was not issued by Colibri's 3DS server, the only one in sandbox mode.");
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

/**
 * Colibri's 3DS claims as sendPayment takes them (AuthenticationClaims, payments/send-payment.ts):
 * claimAuthentication, undone by releaseThreeDsClaim. The composition root hands it to the payment
 * routes (app.ts), so payments never imports 3DS.
 */
export const threeDsClaims: AuthenticationClaims = {
  async claim(ctx, presented, payment) {
    const claim = await claimAuthentication(ctx, presented, payment);
    return claim && { release: () => releaseThreeDsClaim(ctx.db, claim) };
  },
};
