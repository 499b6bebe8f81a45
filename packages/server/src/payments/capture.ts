import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { amountFailure, readAmount } from '../pricing/price';
import { requestOperation } from './operations';
import { changeStatus, lockPayment } from './payment-record';
import { assertOpenPreAuthorization, earlierRequest, type OperationAnswer } from './pre-authorization';
import type { PaymentStatus } from './states';

/**
 * `POST /checkout/<payment_token>/capture`: validate the amount → lock the payment → answer an earlier
 * request with the same Idempotency-Key from its operation → check it is PRE_AUTHORIZED, within its 5
 * days, and holds at least the amount → mark it PROCESSING and ask for the capture operation (its row
 * and its job), in one transaction. Because the row is locked and the status changes, of many captures
 * racing on one payment exactly one proceeds; the others see PROCESSING and are refused.
 *
 * The amount is in the payment's original asset, like the amount of sendPayment; a partial capture
 * releases the rest of the authorisation.
 * @example await capturePayment(ctx, merchantId, token, 12.5, { idempotencyKey: 'order-1-capture' });
 */
export async function capturePayment(ctx: AppContext, merchantId: string, paymentToken: string, amount: number, options: { idempotencyKey?: string | null } = {}): Promise<OperationAnswer> {
  // The form and the API's two decimals are checked before the payment is read; its currency's own
  // exponent once it is.
  const parsed = readAmount(amount);
  if (!parsed.ok) {
    const failure = amountFailure(parsed.reason, { amountField: 'amount', format: 'a positive decimal number' });
    throw new ApiError(failure.key, failure.description);
  }
  const now = await merchantNow(ctx.db, merchantId);
  const answer = await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    const inCurrency = readAmount(amount, payment.original_currency);
    if (!inCurrency.ok) throw new ApiError('FIELD_FORMAT', `amount: has more decimals than ${payment.original_currency} allows.`);
    const requestedMinor = inCurrency.minor;
    if (requestedMinor <= 0n || requestedMinor > payment.original_amount_minor) {
      throw new ApiError('CAPTURE_ABOVE_AUTHORIZED', 'amount: must be less than or equal to the pre-authorised amount.');
    }
    // The BRL amount to capture keeps the proportion of the original (same stored FX rate).
    const captureMinor =
      requestedMinor === payment.original_amount_minor
        ? payment.authorized_minor
        : (payment.authorized_minor * requestedMinor * 2n + payment.original_amount_minor) / (payment.original_amount_minor * 2n);
    const earlier = await earlierRequest(trx, payment, 'capture', options.idempotencyKey, captureMinor);
    if (earlier) return earlier;
    assertOpenPreAuthorization(payment, now, 'NOT_PRE_AUTHORIZED');
    const processing = await changeStatus(trx, payment, 'PROCESSING', now, { error_code: null, error_description: null });
    await requestOperation(trx, { payment, kind: 'capture', amountMinor: captureMinor, at: now, idempotencyKey: options.idempotencyKey });
    return { payment_token: processing.payment_token, transaction_status: processing.status as PaymentStatus };
  });
  ctx.workerSignal.poke();
  return answer;
}
