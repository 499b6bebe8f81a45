import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { formatAmount } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { readAmount } from '../pricing/price';
import { sendPayment, type SendPaymentResult } from '../payments/send-payment';
import type { ThreeDsPaymentInput } from './schemas';
import { canMove } from '../lib/state-machine';
import { AUTHENTICATION_TTL_MS, THREE_DS_STATES } from './states';
import { changeThreeDsStatus, releaseThreeDsClaim, type ThreeDsClaim } from './change-status';
import { isUuid } from '../lib/identifiers';

/**
 * `POST /checkout/3ds/payment`: pays with a successful 3DS authentication. Phases:
 * 1. claim: lock the merchant's authentication and check, in this fixed order, that it exists for
 *    this merchant, that the paymentToken is the one it issued, that the amount and reference_id
 *    sent by the merchant's server are the authenticated ones, that it is finished, that it
 *    succeeded, that it has not paid yet, that it is at most an hour old and that the processor
 *    verified its card; then mark it USED in the same transaction, so of two racing requests
 *    exactly one proceeds;
 * 2. pay: hand the payment to `sendPayment` as the merchant would, with the authenticated card, the
 *    authentication's amount and references, the 3DS data (ECI, CAVV, version, directory-server
 *    transaction id) and the reserved payment token; it is priced, stored and processed like any
 *    sendPayment (the CAVV travels in the processing job only); a hosted checkout's debit form passes
 *    its session (`checkoutId`), to which the payment then belongs from its creation;
 * 3. forget the CAVV. If sendPayment refuses, the claim is undone (releaseThreeDsClaim, the
 *    compensation in change-status.ts) so nothing is lost.
 * @example const result = await payWithAuthentication(ctx, merchantId, { id, paymentToken, amount: '150.50', reference_id: 'order-1' });
 */
export async function payWithAuthentication(
  ctx: AppContext,
  merchantId: string,
  input: ThreeDsPaymentInput,
  options: { checkoutId?: string | undefined } = {},
): Promise<SendPaymentResult> {
  if (!isUuid(input.id)) throw new ApiError('THREE_DS_NOT_FOUND');
  const now = await merchantNow(ctx.db, merchantId);
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('three_ds_authentications')
      .selectAll()
      .where('id', '=', input.id)
      .where('merchant_id', '=', merchantId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new ApiError('THREE_DS_NOT_FOUND');
    if (row.payment_token !== input.paymentToken.toLowerCase()) throw new ApiError('THREE_DS_TOKEN_MISMATCH');
    // The amount and reference come from the merchant's server, never from the browser that authenticated.
    const amount = readAmount(input.amount, row.currency);
    if (!amount.ok) throw new ApiError('FIELD_FORMAT', 'amount: must be a decimal number such as "150.50".');
    if (amount.minor !== row.amount_minor) throw new ApiError('THREE_DS_AMOUNT_MISMATCH');
    if (input.reference_id !== row.reference_id) throw new ApiError('THREE_DS_REFERENCE_MISMATCH');
    if (row.status === 'CHALLENGE_PENDING') throw new ApiError('THREE_DS_PENDING');
    if (row.status === 'USED') throw new ApiError('THREE_DS_ALREADY_USED');
    if (!canMove(THREE_DS_STATES, row.status, 'USED')) throw new ApiError('THREE_DS_NOT_AUTHENTICATED');
    if (row.authenticated_at && now.getTime() - row.authenticated_at.getTime() > AUTHENTICATION_TTL_MS) throw new ApiError('THREE_DS_EXPIRED');
    // Told here, to the merchant's authenticated server, and never to the browser (no card-testing oracle).
    if (row.card_declined) throw new ApiError('THREE_DS_CARD_DECLINED');
    // The row is locked, so the guard of the change cannot miss: this request holds the claim.
    await changeThreeDsStatus(trx, row, 'USED', now);
    return row;
  });
  const claim: ThreeDsClaim = { before: claimed, usedAt: now };
  if (!claimed.person_id || !claimed.card_id || !claimed.cavv_ciphertext || !claimed.cavv_key_id || !claimed.eci || !claimed.version || !claimed.dstrans_id) {
    throw new Error(`invariant: authenticated 3DS authentication ${claimed.id} lacks its card or authentication value`);
  }

  const merchant = await ctx.db.selectFrom('merchants').select('contract_id').where('id', '=', merchantId).executeTakeFirstOrThrow();
  let result: SendPaymentResult;
  try {
    result = await sendPayment(
      ctx,
      merchantId,
      {
        contract_id: merchant.contract_id,
        reference_id: claimed.reference_id,
        notification_url: claimed.notification_url,
        public_person_id: claimed.person_id,
        public_card_id: claimed.card_id,
        payment: {
          amount: formatAmount(claimed.amount_minor, exponentOf(claimed.currency)),
          method: claimed.method === 'DEBITCARD' ? 'DEBITCARD' : 'CREDITCARD',
          asset: claimed.currency,
          installments: claimed.installments,
        },
        authentication: {
          cavv: ctx.secretBox.decrypt(claimed.cavv_key_id, claimed.cavv_ciphertext),
          eci: claimed.eci,
          version: claimed.version,
          dstrans_id: claimed.dstrans_id,
        },
      },
      { paymentToken: claimed.payment_token, authenticationClaimed: true, checkoutId: options.checkoutId },
    );
  } catch (error) {
    // No payment was stored: the claim is undone, and the authentication can pay with a right request.
    await releaseThreeDsClaim(ctx.db, claim);
    throw error;
  }
  // The CAVV is a one-time cryptogram: once it is in the processing job it is not kept here.
  await ctx.db.updateTable('three_ds_authentications').set({ cavv_ciphertext: null, cavv_key_id: null }).where('id', '=', claimed.id).execute();
  return result;
}
