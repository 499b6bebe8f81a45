import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { amountFailure, readAmount } from '../pricing/price';
import { keyedOperation, requestOperation, type OperationRow } from './operations';
import { changeStatus, lockPayment, type PaymentRow } from './payment-record';
import { PRE_AUTHORIZATION_TTL_MS, type PaymentStatus } from './states';

/** A capture's or cancel's answer: the payment, and the status its request answered (PROCESSING once accepted). */
export interface OperationAnswer {
  payment_token: string;
  transaction_status: PaymentStatus;
}

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

/**
 * A pre-authorisation that may still be captured or canceled: PRE_AUTHORIZED (else `notPreAuthorized`,
 * 422) and within 5 days of its authorisation (else PRE_AUTHORIZATION_EXPIRED, 422). The time counts
 * from the first authorisation (`pre_authorized_at` is stamped once), whatever came back since.
 * @example assertOpenPreAuthorization(payment, now, 'NOT_CANCELABLE');
 */
export function assertOpenPreAuthorization(payment: PaymentRow, now: Date, notPreAuthorized: 'NOT_PRE_AUTHORIZED' | 'NOT_CANCELABLE'): void {
  if (payment.status !== 'PRE_AUTHORIZED') throw new ApiError(notPreAuthorized, undefined, { message: `Payment is ${payment.status}; this operation needs PRE_AUTHORIZED.` });
  if (payment.pre_authorized_at && now.getTime() - payment.pre_authorized_at.getTime() >= PRE_AUTHORIZATION_TTL_MS) {
    throw new ApiError('PRE_AUTHORIZATION_EXPIRED');
  }
}

/**
 * The answer of an earlier request with this Idempotency-Key, found from the operation it asked for:
 * a retry after a crash (whose stored answer was lost with the process) answers as the first request
 * did, PROCESSING, instead of being refused by the status the first one left. The same key for another
 * payment or amount is a different request (IDEMPOTENCY_KEY_REUSED).
 */
export async function earlierRequest(
  trx: Db,
  payment: PaymentRow,
  kind: OperationRow['kind'],
  idempotencyKey: string | null | undefined,
  amountMinor: bigint,
): Promise<OperationAnswer | undefined> {
  if (!idempotencyKey) return undefined;
  const earlier = await keyedOperation(trx, payment.merchant_id, kind, idempotencyKey);
  if (!earlier) return undefined;
  if (earlier.payment_token !== payment.payment_token || earlier.amount_minor !== amountMinor) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
  return { payment_token: payment.payment_token, transaction_status: 'PROCESSING' };
}
