import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { backoffMs, RetryLater, type Job, type JobKind } from '../jobs/queue';
import { balanceDay } from '../ledger/ledger';
import { askThenSend, attemptOutcome, type OperationResult, type SettlementPayer } from '../processor/processor';
import { HELD_FAILURE } from './hold';
import { arrivalDate, type SettlementCurrency } from './settlement-days';
import { changeSettlementStatus, lockSettlement, type SettlementRow } from './settlement-record';

/** The job kind that sends one settlement to the merchant's bank; one job per settlement, keyed by its processor reference. */
export const PAY_SETTLEMENT_JOB = 'settlement.pay';

export interface PaySettlementJob {
  settlementId: string;
  merchantId: string;
}

/** Why a live settlement waits PENDING: nothing pays settlements yet (docs/connectors.md, "Settlements"). */
export const NO_SETTLEMENT_PAYER =
  "no connector pays settlements for this merchant (the connector serving PAYOUT does not implement paySettlement: docs/connectors.md, 'Settlements'); the settlement waits PENDING and is retried";

/**
 * The settlement job kind, for the job registry (job-registry.ts). It has no `abandon`: a settlement is never
 * given up by a timer. One that cannot be sent (no connector pays settlements, or the bank is unreachable)
 * stays PENDING, is retried, and once past the job deadline is listed at `GET /admin/stuck-operations`.
 * @example new Map([[PAY_SETTLEMENT_JOB, paySettlementJob(ctx)]])
 */
export function paySettlementJob(ctx: AppContext): JobKind {
  return { run: (job: Job<PaySettlementJob>) => paySettlement(ctx, job.payload.merchantId, job.payload.settlementId, job.attempts) };
}

/**
 * Takes one settlement to the merchant's bank, in phases (as payouts/process-payout.ts does):
 *
 * 1. under the merchant's settings lock and the settlement's row lock, a PENDING settlement of a held merchant
 *    fails (its money is available again); otherwise, when a connector pays settlements, it becomes IN_TRANSIT
 *    with its arrival date (the next business day after today); an IN_TRANSIT one is a retry;
 * 2. with no lock held, the connector is asked: on a retry it is first asked whether it knows the settlement's
 *    reference (an earlier attempt may have reached the bank), and only a settlement it never saw is sent,
 *    under the same reference;
 * 3. under the row lock again, the answer settles it: APPROVED → PAID, DECLINED or ERROR → FAILED with the
 *    bank's code and description, and its money back in the available balance.
 *
 * An unreachable bank and a timeout leave it IN_TRANSIT and retry with backoff; the outcome always comes from
 * the bank's own answer.
 * @example await paySettlement(ctx, merchantId, settlementId, 1);
 */
export async function paySettlement(ctx: AppContext, merchantId: string, settlementId: string, attempt: number): Promise<void> {
  const payer = await ctx.connectors.settlementPayer(merchantId);
  const started = await ctx.db.transaction().execute(async (trx) => {
    // The settings row first, as the sweep and a hold take it, so a hold and this move never cross.
    const settings = await trx.selectFrom('settlement_settings').select('held').where('merchant_id', '=', merchantId).forShare().executeTakeFirst();
    const settlement = await lockSettlement(trx, merchantId, settlementId);
    if (settlement?.status === 'PENDING') {
      const now = await merchantNow(trx, merchantId);
      if (settings?.held) {
        await changeSettlementStatus(trx, settlement, 'FAILED', now, HELD_FAILURE);
        return undefined;
      }
      if (!payer) return { waiting: true as const };
      const arrival = arrivalDate(balanceDay(now, settlement.currency), settlement.currency as SettlementCurrency);
      return { settlement: await changeSettlementStatus(trx, settlement, 'IN_TRANSIT', now, { arrival_date: arrival }), retry: false };
    }
    if (settlement?.status === 'IN_TRANSIT') return { settlement, retry: true };
    return undefined;
  });
  if (!started) return;
  if ('waiting' in started) throw new RetryLater(NO_SETTLEMENT_PAYER, backoffMs(attempt), 'NOT_SENT');
  // Sent by an earlier attempt through a connector that no longer pays settlements: only the bank can say.
  if (!payer) throw new RetryLater(NO_SETTLEMENT_PAYER, backoffMs(attempt), 'UNKNOWN');

  let result: OperationResult;
  try {
    result = await askThenSend(started.retry, () => payer.status(merchantId, started.settlement.processor_reference), () => send(payer, started.settlement));
  } catch (error) {
    const outcome = attemptOutcome(error);
    if (outcome) throw new RetryLater((error as Error).message, backoffMs(attempt), outcome);
    throw error;
  }
  await settle(ctx, merchantId, settlementId, result);
}

function send(payer: SettlementPayer, settlement: SettlementRow): Promise<OperationResult> {
  return payer.paySettlement({
    merchantId: settlement.merchant_id,
    reference: settlement.processor_reference,
    currency: settlement.currency,
    amountMinor: settlement.amount_minor,
    destination: settlement.destination,
  });
}

/** Applies the bank's answer under the row lock; a settlement settled meanwhile is left as it is. */
async function settle(ctx: AppContext, merchantId: string, settlementId: string, result: OperationResult): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const settlement = await lockSettlement(trx, merchantId, settlementId);
    if (settlement?.status !== 'IN_TRANSIT') return;
    const now = await merchantNow(trx, merchantId);
    if (result.status === 'APPROVED') {
      await changeSettlementStatus(trx, settlement, 'PAID', now, { processor_id: result.processorId });
    } else {
      await changeSettlementStatus(trx, settlement, 'FAILED', now, { failure_code: result.code, failure_description: result.description });
    }
  });
}
