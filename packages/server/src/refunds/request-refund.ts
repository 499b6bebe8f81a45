import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { cancelJob, enqueue, runJobNow } from '../jobs/queue';
import { formatAmount } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { amountFailure, readAmount } from '../pricing/price';
import { lockPayment } from '../payments/payment-record';
import { ProcessorTimeoutError, ProcessorUnavailableError, type OperationResult, type PaymentMethodName } from '../processor/processor';
import { validateDestination, type DestinationInput } from './destination';
import { announce, changeRefundStatus, type RefundRow } from './refund-record';
import { refundReference, SETTLE_REFUND_JOB, type SettleRefundJob } from './settle-refund';
import { PENDING_REFUND_STATUSES } from './states';
import { REFUNDABLE_STATUSES, REFUND_RULES, refundDeadline, type RefundFailure } from './rules';
import { isUuid } from '../lib/identifiers';

export interface RefundRequest extends DestinationInput {
  payment_token: string;
  amount?: number | undefined;
  notification_url?: string | undefined;
}

/**
 * `POST /refund`, in three phases:
 * 1. Reserve: lock the payment, check every rule in a fixed order (status, currency, window, amount,
 *    method, destination) against what is still refundable — captured plus customer fees, less completed
 *    refunds and refunds in flight — and insert the refund REQUESTED. The row lock makes concurrent
 *    refunds of one payment queue up, so their sum can never pass what the payment holds.
 * 2. Submit it to the processor, outside any transaction.
 * 3. Record the answer: accepted → PROCESSING (a job settles it to COMPLETED or FAILED from the
 *    processor's status); rejected → FAILED; unreachable → the reservation is deleted and the client gets
 *    502 00.03.0001 with nothing refunded or reserved; timed out → PROCESSING, settled from the
 *    processor's own answer later.
 * @example const refund = await requestRefund(ctx, merchantId, { payment_token, amount: 10 });
 */
export async function requestRefund(ctx: AppContext, merchantId: string, input: RefundRequest, options: { idempotencyKey?: string | undefined } = {}): Promise<RefundRow> {
  const idempotencyKey = options.idempotencyKey ?? null;
  // The form and the API's two decimals are checked before the payment is read; the amount is read in
  // the payment's currency once it is.
  const parsed = input.amount === undefined ? undefined : readAmount(input.amount);
  if (parsed && !parsed.ok) {
    const failure = amountFailure(parsed.reason, { amountField: 'amount', format: 'a positive decimal number' });
    throw new ApiError(failure.key, failure.description);
  }
  const now = await merchantNow(ctx.db, merchantId);

  // Refused, with nothing written, when no connector serves the payment's method (live mode). Asked
  // before the transaction: the router may read the merchant's own connectors, which must not wait
  // on a connection the transaction holds (PGlite has one).
  const seenMethod = !isUuid(input.payment_token) ? undefined : await ctx.db.selectFrom('payments').select('method').where('merchant_id', '=', merchantId).where('payment_token', '=', input.payment_token).executeTakeFirst();
  if (seenMethod) await ctx.connectors.requireMethod(merchantId, seenMethod.method as PaymentMethodName);

  const reserved = await ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, input.payment_token);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    // A retry after a crash finds what the first run of its Idempotency-Key reserved: a refund still
    // REQUESTED goes on to the processor (under the same reference, so never twice), any other answers.
    const earlier = idempotencyKey === null ? undefined : await trx.selectFrom('refunds').selectAll().where('merchant_id', '=', merchantId).where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
    if (earlier) return { refund: earlier, processorId: payment.processor_id ?? '', method: payment.method as PaymentMethodName, resumed: true };
    if (!(REFUNDABLE_STATUSES as readonly string[]).includes(payment.status)) {
      throw new ApiError('REFUND_STATUS_NOT_ALLOWED', undefined, { message: `Payment is ${payment.status}; a refund needs PAID or PARTIALLY_REFUNDED.` });
    }
    const rules = REFUND_RULES[payment.method];
    if (!rules) throw new ApiError('REFUND_STATUS_NOT_ALLOWED', `payment_token: ${payment.method} payments cannot be refunded.`);
    if (payment.original_currency !== rules.currency || payment.currency !== rules.currency) {
      throw new ApiError('REFUND_CURRENCY_NOT_ELIGIBLE', undefined, { message: `${payment.method} payments are refunded in ${rules.currency} only; this one is priced in ${payment.original_currency}.` });
    }
    const deadline = refundDeadline(rules, payment.paid_at ?? payment.created_at);
    if (deadline && now.getTime() > deadline.getTime()) {
      throw new ApiError('REFUND_WINDOW_CLOSED', `payment_token: the refund window of ${payment.method} payments closed on ${deadline.toISOString().slice(0, 10)}.`);
    }

    const pending = await trx
      .selectFrom('refunds')
      .select(sql<string>`coalesce(sum(amount_minor), 0)`.as('total'))
      .where('payment_token', '=', payment.payment_token)
      .where('status', 'in', PENDING_REFUND_STATUSES)
      .executeTakeFirstOrThrow();
    const total = payment.captured_minor + payment.customer_fees_minor;
    const refundable = total - payment.refunded_minor - BigInt(pending.total);
    // What disputes hold or took (all but won ones; a MED devolução is a refund already) cannot be refunded
    // as well: the customer would get it back twice (docs/disputes.md, "Refunds of a disputed payment").
    const disputed = await trx
      .selectFrom('disputes')
      .select(sql<string>`coalesce(sum(amount_minor), 0)`.as('total'))
      .where('payment_token', '=', payment.payment_token)
      .where('merchant_id', '=', merchantId)
      .where('status', '<>', 'WON')
      .where('refund_id', 'is', null)
      .executeTakeFirstOrThrow();
    const undisputed = refundable - BigInt(disputed.total);
    const requested = input.amount === undefined ? undefined : readAmount(input.amount, payment.currency);
    if (requested && !requested.ok) throw new ApiError('FIELD_FORMAT', `amount: has more decimals than ${payment.currency} allows.`);
    const amount = requested?.minor ?? undisputed;
    const failures: RefundFailure[] = [];
    const money = (minor: bigint) => formatAmount(minor > 0n ? minor : 0n, exponentOf(payment.currency));
    if (BigInt(disputed.total) > 0n && (amount > undisputed || amount <= 0n) && amount <= refundable) {
      failures.push({ key: 'REFUND_AMOUNT_DISPUTED', description: `amount: ${money(BigInt(disputed.total))} of the payment is held by a dispute; at most ${money(undisputed)} can be refunded.` });
    } else if (amount <= 0n || amount > refundable) {
      failures.push({ key: 'REFUND_AMOUNT_EXCEEDS_REFUNDABLE', description: `amount: must be less than or equal to the amount still refundable (${money(refundable)}).` });
    } else if (!rules.partial && amount !== total) {
      failures.push({ key: 'PARTIAL_REFUND_NOT_ALLOWED', description: `amount: ${payment.method} payments are refunded whole only.` });
    }
    const { destination, failures: destinationFailures } = validateDestination(rules, input);
    failures.push(...destinationFailures);
    if (failures.length > 0) throw ApiError.fields(failures);

    const refund = await trx
      .insertInto('refunds')
      .values({
        payment_token: payment.payment_token,
        merchant_id: merchantId,
        amount_minor: amount,
        currency: payment.currency,
        status: 'REQUESTED',
        notification_url: input.notification_url ?? payment.notification_url,
        destination: destination ? JSON.stringify(destination) : null,
        processor_id: null,
        error_code: null,
        error_description: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
        failed_at: null,
        idempotency_key: idempotencyKey,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.insertInto('refund_status_history').values({ refund_id: refund.refund_id, merchant_id: refund.merchant_id, status: 'REQUESTED', at: now }).execute();
    // The refund's settlement job exists from its reservation on, due in a minute: should this request
    // die before recording the processor's answer, the job resumes the refund from the processor's own
    // record instead of leaving it REQUESTED (and its amount reserved) for ever. Phase 3 makes it due now.
    const job: SettleRefundJob = { refundId: String(refund.refund_id), merchantId };
    await enqueue(trx, SETTLE_REFUND_JOB, job, { runAt: new Date(Date.now() + RESUME_AFTER_MS), uniqueKey: refundReference(refund) });
    return { refund, processorId: payment.processor_id ?? '', method: payment.method as PaymentMethodName, resumed: false };
  });
  if (reserved.resumed && reserved.refund.status !== 'REQUESTED') return reserved.refund;

  let result: OperationResult | 'TIMEOUT';
  try {
    result = await ctx.processor.refund({
      merchantId,
      reference: refundReference(reserved.refund),
      processorId: reserved.processorId,
      amountMinor: reserved.refund.amount_minor,
      method: reserved.method,
      currency: reserved.refund.currency,
    });
  } catch (error) {
    if (error instanceof ProcessorUnavailableError) {
      await ctx.db.transaction().execute(async (trx) => {
        await cancelJob(trx, refundReference(reserved.refund));
        await trx.deleteFrom('refund_status_history').where('refund_id', '=', reserved.refund.refund_id).execute();
        await trx.deleteFrom('refunds').where('refund_id', '=', reserved.refund.refund_id).execute();
      });
      throw new ApiError('EXTERNAL_API');
    }
    if (!(error instanceof ProcessorTimeoutError)) throw error;
    result = 'TIMEOUT';
  }

  const settledAt = await merchantNow(ctx.db, merchantId);
  const refund = await ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('refunds').selectAll().where('refund_id', '=', reserved.refund.refund_id).forUpdate().executeTakeFirstOrThrow();
    // Its settlement job got there first (this request took over a minute): the refund is as it says.
    if (current.status !== 'REQUESTED') return current;
    // The REQUESTED event is written now: a reservation that the processor never saw is deleted above
    // and must not have been announced.
    await announce(trx, current);
    if (result !== 'TIMEOUT' && result.status !== 'APPROVED') {
      return changeRefundStatus(trx, current, 'FAILED', settledAt, { error_code: result.code, error_description: result.description });
    }
    const processing = await changeRefundStatus(trx, current, 'PROCESSING', settledAt, {
      processor_id: result === 'TIMEOUT' ? null : result.processorId,
    });
    await runJobNow(trx, refundReference(processing));
    return processing;
  });
  ctx.workerSignal.poke();
  return refund;
}

/** How long a reserved refund waits for its request before its settlement job resumes it. */
const RESUME_AFTER_MS = 60_000;

