import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { keyedOperation, type OperationRow } from './operations';
import type { PaymentRow } from './payment-record';
import { PRE_AUTHORIZATION_TTL_MS, type PaymentStatus } from './states';

/**
 * The rules a capture and a cancel of a pre-authorisation share (capture.ts, cancel.ts): the 5-day
 * window, counted from the first authorisation, and the answer to a request retried after a crash.
 */

/** A capture's or cancel's answer: the payment, and the status its request answered (PROCESSING once accepted). */
export interface OperationAnswer {
  payment_token: string;
  transaction_status: PaymentStatus;
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
 * @example const earlier = await earlierRequest(trx, payment, 'capture', key, captureMinor); if (earlier) return earlier;
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
