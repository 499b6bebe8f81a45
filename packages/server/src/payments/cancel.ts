import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { enqueue } from '../jobs/queue';
import { changeStatus, lockPayment, type PaymentRow } from './payment-record';
import { PROCESS_PAYMENT_JOB, type ProcessPaymentJob } from './payment-job';
import { PRE_AUTHORIZATION_TTL_MS } from './states';

async function startCancel(trx: Db, payment: PaymentRow, now: Date, reason: 'REQUESTED' | 'TTL'): Promise<PaymentRow> {
  const processing = await changeStatus(trx, payment, 'PROCESSING', now, { pending_capture_minor: null });
  const job: ProcessPaymentJob = { paymentToken: payment.payment_token, merchantId: payment.merchant_id, step: 'cancel', reason };
  await enqueue(trx, PROCESS_PAYMENT_JOB, job);
  return processing;
}

/**
 * `POST /checkout/<payment_token>/cancel`: voids a pre-authorisation that was not captured. Like a
 * capture it locks the row and moves the payment to PROCESSING, so cancels and captures racing on one
 * payment have exactly one effect.
 * @example await cancelPreAuthorization(ctx, merchantId, token);
 */
export async function cancelPreAuthorization(ctx: AppContext, merchantId: string, paymentToken: string): Promise<PaymentRow> {
  const now = await merchantNow(ctx.db, merchantId);
  const payment = await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    if (payment.status !== 'PRE_AUTHORIZED') throw new ApiError('NOT_CANCELABLE', undefined, { message: `Payment is ${payment.status}; this operation needs PRE_AUTHORIZED.` });
    return startCancel(trx, payment, now, 'REQUESTED');
  });
  ctx.workerSignal.poke();
  return payment;
}

/**
 * The 5-day TTL: pre-authorisations older than that on their merchant's clock are voided and end
 * CANCELED. Run periodically by every worker; each payment is locked and re-checked, so two
 * workers sweeping at once cancel it once.
 * @example await expirePreAuthorizations(ctx);
 */
export async function expirePreAuthorizations(ctx: AppContext): Promise<number> {
  const ttlMs = PRE_AUTHORIZATION_TTL_MS;
  const due = await ctx.db
    .selectFrom('payments')
    .innerJoin('merchants', 'merchants.id', 'payments.merchant_id')
    .select(['payments.payment_token', 'payments.merchant_id'])
    .where('payments.status', '=', 'PRE_AUTHORIZED')
    .where(sql<boolean>`payments.pre_authorized_at <= now() + (merchants.clock_offset_ms * interval '1 millisecond') - (${ttlMs} * interval '1 millisecond')`)
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
