import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { askThenSend, attemptOutcome, type OperationResult } from '../processor/processor';
import { changePayoutStatus } from './change-payout-status';
import { lockPayout, processorReference, type PayoutRecord } from './payout-record';

/** The job kind that sends one payout to the processor; one job per payout, enqueued with its batch. */
export const PROCESS_PAYOUT_JOB = 'payout.process';

export interface ProcessPayoutJob {
  txId: string;
}

/**
 * The payout job kind, for the job registry (job-registry.ts).
 * @example new Map([[PROCESS_PAYOUT_JOB, processPayoutJob(ctx)]])
 */
export function processPayoutJob(ctx: AppContext): JobKind {
  return {
    run: (job: Job<ProcessPayoutJob>) => processPayout(ctx, job.payload.txId, job.attempts),
    // A payout the bank never received by its deadline is rejected, so the merchant can send it again.
    abandon: (job: Job<ProcessPayoutJob>, reason: string) =>
      settle(ctx, job.payload.txId, { status: 'ERROR', code: 'PROCESSOR_UNAVAILABLE', description: `The bank could not be reached before the deadline; nothing was sent (${reason}).` }),
  };
}

/**
 * Takes one payout through the processor, in phases:
 *
 * 1. under the row lock, a CREATED payout becomes PROCESSING (a PROCESSING one is a retry, a settled
 *    one has nothing left to do);
 * 2. with no lock held, the processor is asked: on a retry it is first asked whether it already knows
 *    the payout's reference, since an earlier attempt may have timed out after the bank acted, and
 *    only a payout it never saw is sent (again under the same reference, so never twice);
 * 3. under the row lock again, the answer settles the payout: APPROVED → PAID, DECLINED or ERROR →
 *    REJECTED with the processor's code and description.
 *
 * An unreachable processor (the request never arrived) and a timeout (the outcome is unknown) both
 * leave the payout PROCESSING and retry the job with backoff; the outcome always comes from the
 * processor's own answer, never from a guess.
 * @example await processPayout(ctx, txId, 1);
 */
export async function processPayout(ctx: AppContext, txId: string, attempt: number): Promise<void> {
  const started = await ctx.db.transaction().execute(async (trx) => {
    const payout = await lockPayout(trx, txId);
    if (payout?.status === 'CREATED') {
      return { payout: await changePayoutStatus(trx, payout, 'PROCESSING', await merchantNow(trx, payout.merchant_id)), retry: false };
    }
    if (payout?.status === 'PROCESSING') return { payout, retry: true };
    return undefined;
  });
  if (!started) return;

  let result: OperationResult;
  try {
    result = await askThenSend(started.retry, () => ctx.processor.status(started.payout.merchant_id, processorReference(txId)), () => send(ctx, started.payout));
  } catch (error) {
    const outcome = attemptOutcome(error);
    if (outcome) throw new RetryLater((error as Error).message, backoffMs(attempt), outcome);
    throw error;
  }
  await settle(ctx, txId, result);
}

function send(ctx: AppContext, payout: PayoutRecord): Promise<OperationResult> {
  return ctx.processor.payout({
    merchantId: payout.merchant_id,
    reference: processorReference(payout.tx_id),
    country: payout.country,
    currency: payout.currency,
    // The customer fees are withheld: the recipient's account receives the customer amount.
    amountMinor: payout.customer_amount_minor,
    bankCode: payout.bank_code ?? undefined,
    accountType: payout.account_type,
    accountNumber: payout.account_number,
    taxId: payout.tax_id,
  });
}

/** Applies the processor's answer under the row lock; a payout settled meanwhile is left as it is. */
async function settle(ctx: AppContext, txId: string, result: OperationResult): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const payout = await lockPayout(trx, txId);
    if (payout?.status !== 'PROCESSING') return;
    const now = await merchantNow(trx, payout.merchant_id);
    if (result.status === 'APPROVED') {
      await changePayoutStatus(trx, payout, 'PAID', now, { processor_id: result.processorId });
    } else {
      await changePayoutStatus(trx, payout, 'REJECTED', now, { error_code: result.code, error_description: result.description });
    }
  });
}
