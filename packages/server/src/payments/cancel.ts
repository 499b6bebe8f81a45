import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { assertOpenPreAuthorization, earlierRequest, type OperationAnswer } from './pre-authorization';
import { requestOperation } from './operations';
import { changeStatus, lockPayment, type PaymentRow } from './payment-record';
import { PRE_AUTHORIZATION_TTL_MS, type PaymentStatus } from './states';

/** PROCESSING, and the void asked of the processor (its operation and job), in the caller's transaction. */
async function startCancel(trx: Db, payment: PaymentRow, now: Date, reason: 'REQUESTED' | 'TTL', idempotencyKey?: string | null): Promise<PaymentRow> {
  const processing = await changeStatus(trx, payment, 'PROCESSING', now, { error_code: null, error_description: null });
  await requestOperation(trx, { payment, kind: 'cancel', amountMinor: payment.authorized_minor, at: now, reason, idempotencyKey });
  return processing;
}

/**
 * `POST /checkout/<payment_token>/cancel`: voids a pre-authorisation that was not captured. Like a
 * capture it locks the row, moves the payment to PROCESSING and asks for an operation, so cancels and
 * captures racing on one payment have exactly one effect; a retry with the same Idempotency-Key after
 * a crash answers from the operation the first request asked for. Past the 5-day TTL it answers
 * PRE_AUTHORIZATION_EXPIRED: the TTL sweep voids it.
 * @example await cancelPreAuthorization(ctx, merchantId, token, { idempotencyKey: 'order-1-cancel' });
 */
export async function cancelPreAuthorization(ctx: AppContext, merchantId: string, paymentToken: string, options: { idempotencyKey?: string | null } = {}): Promise<OperationAnswer> {
  const now = await merchantNow(ctx.db, merchantId);
  const answer = await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    const earlier = await earlierRequest(trx, payment, 'cancel', options.idempotencyKey, payment.authorized_minor);
    if (earlier) return earlier;
    assertOpenPreAuthorization(payment, now, 'NOT_CANCELABLE');
    const processing = await startCancel(trx, payment, now, 'REQUESTED', options.idempotencyKey);
    return { payment_token: processing.payment_token, transaction_status: processing.status as PaymentStatus };
  });
  ctx.workerSignal.poke();
  return answer;
}

/**
 * The 5-day TTL: pre-authorisations older than that on their merchant's clock, counted from their
 * first authorisation, are voided at the processor and end CANCELED. Run periodically by every worker;
 * each payment is locked and re-checked, so two workers sweeping at once cancel it once.
 * @example await expirePreAuthorizations(ctx);
 */
export async function expirePreAuthorizations(ctx: AppContext): Promise<number> {
  const ttlMs = PRE_AUTHORIZATION_TTL_MS;
  const due = await ctx.db
    .selectFrom('payments')
    .innerJoin('merchants', 'merchants.id', 'payments.merchant_id')
    .select(['payments.payment_token', 'payments.merchant_id'])
    // Set only while PRE_AUTHORIZED, and indexed (migration 0047).
    .where(sql<boolean>`payments.open_pre_authorized_at <= now() + (merchants.clock_offset_ms * interval '1 millisecond') - (${ttlMs} * interval '1 millisecond')`)
    .limit(500)
    .execute();
  let expired = 0;
  for (const { payment_token, merchant_id } of due) {
    const now = await merchantNow(ctx.db, merchant_id);
    expired += await ctx.db.transaction().execute(async (trx) => {
      const payment = await lockPayment(trx, merchant_id, payment_token);
      if (!payment || payment.status !== 'PRE_AUTHORIZED') return 0;
      await startCancel(trx, payment, now, 'TTL');
      return 1;
    });
  }
  if (expired > 0) ctx.workerSignal.poke();
  return expired;
}
