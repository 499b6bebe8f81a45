import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { balanceDay, postJournal } from '../ledger/ledger';
import { lockPayment } from '../payments/payment-record';
import { attemptOutcome, type OperationResult, type PaymentMethodName } from '../processor/processor';
import { addRefunded, announce, changeRefundStatus, type RefundRow } from './refund-record';

/** The job kind that settles a refund (and resumes one whose request died before recording its answer). */
export const SETTLE_REFUND_JOB = 'refund.settle';

export interface SettleRefundJob {
  refundId: string;
  merchantId: string;
}

/** The processor reference of a refund: stable across retries, so the processor deduplicates them. */
export function refundReference(refund: Pick<RefundRow, 'refund_id' | 'payment_token'>): string {
  return `${refund.payment_token}:refund:${refund.refund_id}`;
}

/**
 * The refund settlement job kind, for the job registry (job-registry.ts). It has no `abandon`: a
 * refund's outcome is unknown until the processor answers, so it is never given up.
 * @example new Map([[SETTLE_REFUND_JOB, settleRefundJob(ctx)]])
 */
export function settleRefundJob(ctx: AppContext): JobKind {
  return { run: settleRefundHandler(ctx) };
}

/**
 * Settles a PROCESSING refund from the processor's own answer for its reference (resubmitting it with
 * the same reference if the processor never saw it). On COMPLETED the payment's refunded amount grows,
 * the payment becomes PARTIALLY_REFUNDED or REFUNDED, and the ledger moves the money back: all in one
 * transaction under the payment's row lock.
 */
function settleRefundHandler(ctx: AppContext) {
  return async (job: Job<SettleRefundJob>): Promise<void> => {
    const { refundId, merchantId } = job.payload;
    const seen = await ctx.db.selectFrom('refunds').selectAll().where('refund_id', '=', BigInt(refundId)).executeTakeFirst();
    // PROCESSING: the processor accepted it or timed out. REQUESTED: the request that reserved it died
    // before recording the processor's answer (or never sent it); the same reference finds or sends it.
    if (!seen || (seen.status !== 'PROCESSING' && seen.status !== 'REQUESTED')) return;
    const reference = refundReference(seen);
    // A resend needs what the processor refunds: the payment's processor id, method and currency.
    const paid = await ctx.db.selectFrom('payments').select(['processor_id', 'method']).where('payment_token', '=', seen.payment_token).executeTakeFirst();
    const method = paid?.method as PaymentMethodName | undefined;
    let result: OperationResult;
    try {
      result =
        (await ctx.processor.status(merchantId, reference, method)) ??
        (await ctx.processor.refund({ merchantId, reference, processorId: paid?.processor_id ?? '', amountMinor: seen.amount_minor, method, currency: seen.currency }));
    } catch (error) {
      // A PROCESSING refund was accepted by the processor or timed out there: its outcome is unknown
      // until the processor answers, whatever this attempt's failure, so it is never given up.
      if (attemptOutcome(error)) throw new RetryLater((error as Error).message, backoffMs(job.attempts), 'UNKNOWN');
      throw error;
    }
    const now = await merchantNow(ctx.db, merchantId);
    await ctx.db.transaction().execute(async (trx) => {
      const payment = await lockPayment(trx, merchantId, seen.payment_token);
      let refund = await trx.selectFrom('refunds').selectAll().where('refund_id', '=', BigInt(refundId)).forUpdate().executeTakeFirst();
      if (!payment || !refund) return;
      if (refund.status === 'REQUESTED') {
        // Resumed: its REQUESTED event was never written, nor its move to PROCESSING.
        await announce(trx, refund);
        if (result.status === 'APPROVED') refund = await changeRefundStatus(trx, refund, 'PROCESSING', now, { processor_id: result.processorId });
      }
      if (refund.status !== 'PROCESSING' && refund.status !== 'REQUESTED') return;
      if (result.status !== 'APPROVED') {
        await changeRefundStatus(trx, refund, 'FAILED', now, { error_code: result.code, error_description: result.description });
        return;
      }
      await changeRefundStatus(trx, refund, 'COMPLETED', now, { processor_id: result.processorId });
      await addRefunded(trx, payment, refund.amount_minor, now);
      // The money goes back out of what the processor owes us and what we owe the merchant; fees are kept.
      await postJournal(trx, {
        merchantId,
        kind: 'refund',
        currency: refund.currency,
        resourceId: payment.payment_token,
        at: now,
        balance: { type: 'REFUND', sourceId: String(refund.refund_id) },
        lines: [
          { account: 'merchant_payable', amountMinor: refund.amount_minor, availableOn: balanceDay(now, refund.currency) },
          { account: 'processor_receivable', amountMinor: -refund.amount_minor },
        ],
      });
    });
  };
}
