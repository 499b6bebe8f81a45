import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { backoffMs, enqueue, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { askThenSend, attemptOutcome, ProcessorPendingError, type OperationResult } from '../processor/processor';
import { changePayoutStatus } from './change-payout-status';
import { lockPayout, processorReference, type PayoutRecord } from './payout-record';
import { markAccepted, markSettled, openDispatch, recheckAcceptedPayouts } from './payout-dispatch';

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
      const connector = (await ctx.connectors.connectorFor(payout.merchant_id, 'PAYOUT')).id;
      const now = await merchantNow(trx, payout.merchant_id);
      const moved = await changePayoutStatus(trx, payout, 'PROCESSING', now);
      await openDispatch(trx, moved, connector, now);
      return { payout: moved, retry: false };
    }
    if (payout?.status === 'PROCESSING') return { payout, retry: true };
    return undefined;
  });
  if (!started) return;

  let result: OperationResult;
  try {
    result = await askThenSend(started.retry, () => ctx.processor.status(started.payout.merchant_id, processorReference(txId), 'PAYOUT'), () => send(ctx, started.payout));
  } catch (error) {
    // Accepted, to be settled later: the dispatch's read-back and the provider's notification take it from here.
    if (error instanceof ProcessorPendingError) return markAccepted(ctx.db, started.payout);
    const outcome = attemptOutcome(error);
    if (outcome) throw new RetryLater((error as Error).message, backoffMs(attempt), outcome);
    throw error;
  }
  await settle(ctx, txId, result);
}

/**
 * The periodic read-back of payouts their connector accepted and has not settled (payouts/payout-dispatch.ts),
 * for the job registry's periodic tasks.
 * @example await recheckPayouts(ctx)
 */
export function recheckPayouts(ctx: AppContext): Promise<number> {
  return recheckAcceptedPayouts(ctx, (txId, result) => settle(ctx, txId, result), (trx, txId) => requeuePayout(trx, txId));
}

function requeuePayout(trx: Db, txId: string): Promise<void> {
  const payload: ProcessPayoutJob = { txId };
  return enqueue(trx, PROCESS_PAYOUT_JOB, payload, { uniqueKey: `${PROCESS_PAYOUT_JOB}:${txId}` });
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
    taxIdType: payout.tax_id_type,
    fullName: payout.full_name ?? undefined,
    email: payout.email ?? undefined,
  });
}

/** Applies the processor's answer under the row lock; a payout settled meanwhile is left as it is. */
async function settle(ctx: AppContext, txId: string, result: OperationResult): Promise<void> {
  await ctx.db.transaction().execute((trx) => settlePayout(trx, txId, result));
}

/**
 * Applies a processor's final answer to a payout still PROCESSING, in the caller's transaction: APPROVED →
 * PAID; a refusal coded `CANCELED` (the processor withdrew it) → CANCELED; any other refusal → REJECTED with
 * the processor's code and description. Its dispatch is settled with it. Answers whether it moved.
 * @example await settlePayout(trx, txId, { status: 'APPROVED', processorId: 'D-4-…' })
 */
export async function settlePayout(trx: Db, txId: string, result: OperationResult): Promise<boolean> {
  const payout = await lockPayout(trx, txId);
  if (payout?.status !== 'PROCESSING') return false;
  const now = await merchantNow(trx, payout.merchant_id);
  if (result.status === 'APPROVED') {
    await changePayoutStatus(trx, payout, 'PAID', now, { processor_id: result.processorId });
  } else {
    await changePayoutStatus(trx, payout, result.code === 'CANCELED' ? 'CANCELED' : 'REJECTED', now, { error_code: result.code, error_description: result.description });
  }
  await markSettled(trx, payout, result.status === 'APPROVED' ? result.processorId : null);
  return true;
}

/**
 * A payout the recipient's bank returned after the processor paid it: PAID → REJECTED with the code
 * `PAYOUT_RETURNED`, whose journal gives the merchant its money back (docs/payouts.md, "Returns"). A payout
 * not PAID (still PROCESSING, or already settled otherwise) is left alone: the caller settles it instead.
 * Answers whether it moved.
 */
export async function returnPayout(trx: Db, txId: string, description: string): Promise<boolean> {
  const payout = await lockPayout(trx, txId);
  if (payout?.status !== 'PAID') return false;
  await changePayoutStatus(trx, payout, 'REJECTED', await merchantNow(trx, payout.merchant_id), { error_code: 'PAYOUT_RETURNED', error_description: description });
  await markSettled(trx, payout, null, true);
  return true;
}
