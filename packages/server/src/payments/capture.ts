import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { enqueue } from '../jobs/queue';
import { amountFailure, readAmount } from '../pricing/price';
import { changeStatus, lockPayment, type PaymentRow } from './payment-record';
import { PROCESS_PAYMENT_JOB, type ProcessPaymentJob } from './payment-job';
import { PRE_AUTHORIZATION_TTL_MS } from './states';

/**
 * `POST /checkout/<payment_token>/capture`: validate the amount → lock the payment → check it is
 * PRE_AUTHORIZED, within its 5 days, and holds at least the amount → mark it PROCESSING with the
 * amount to capture and enqueue the processor call, in one transaction. Because the row is locked and
 * the status changes, of many captures racing on one payment exactly one proceeds; the others see
 * PROCESSING and are refused.
 *
 * The amount is in the payment's original asset, like the amount of sendPayment; a partial capture
 * releases the rest of the authorisation.
 * @example await capturePayment(ctx, merchantId, token, 12.5);
 */
export async function capturePayment(ctx: AppContext, merchantId: string, paymentToken: string, amount: number): Promise<PaymentRow> {
  // The form and the API's two decimals are checked before the payment is read; its currency's own
  // exponent once it is.
  const parsed = readAmount(amount);
  if (!parsed.ok) {
    const failure = amountFailure(parsed.reason, { amountField: 'amount', format: 'a positive decimal number' });
    throw new ApiError(failure.key, failure.description);
  }
  const now = await merchantNow(ctx.db, merchantId);
  const payment = await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    if (payment.status !== 'PRE_AUTHORIZED') throw new ApiError('NOT_PRE_AUTHORIZED', undefined, { message: `Payment is ${payment.status}; this operation needs PRE_AUTHORIZED.` });
    if (payment.pre_authorized_at && now.getTime() - payment.pre_authorized_at.getTime() >= PRE_AUTHORIZATION_TTL_MS) {
      throw new ApiError('PRE_AUTHORIZATION_EXPIRED');
    }
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
    const processing = await changeStatus(trx, payment, 'PROCESSING', now, { pending_capture_minor: captureMinor, error_code: null, error_description: null });
    const job: ProcessPaymentJob = { paymentToken: payment.payment_token, merchantId, step: 'capture' };
    await enqueue(trx, PROCESS_PAYMENT_JOB, job);
    return processing;
  });
  ctx.workerSignal.poke();
  return payment;
}
