import { paymentChangedJob } from './checkout/payment-changed';
import { sweepCheckouts } from './checkout/sweep-checkouts';
import { reconcilePixCharges } from './checkout/pix-charges';
import { reconcilePixReturns } from './checkout/pix-returns';
import { sweepBoletoFiles } from './checkout/boleto-bank';
import type { AppContext } from './context';
import { analyseGrownTables } from './db/planner-statistics';
import { purgeExpiredIdempotencyKeys } from './http/idempotency';
import { purgeEventsPastRetention } from './webhooks/retention';
import type { JobKind } from './jobs/queue';
import { expirePreAuthorizations } from './payments/cancel';
import { PAYMENT_CHANGED_JOB } from './payments/payment-followups';
import { PROCESS_PAYMENT_JOB } from './payments/payment-job';
import { processPaymentJob } from './payments/process-payment';
import { PROCESS_PAYOUT_JOB, processPayoutJob, recheckPayouts } from './payouts/process-payout';
import { SETTLE_REFUND_JOB, settleRefundJob } from './refunds/settle-refund';
import { DISPUTE_NOTICE_JOB } from './connectors/dispute-notices';
import { disputeNoticeJob } from './disputes/apply-notices';
import { sweepDisputes } from './disputes/sweep-disputes';
import { runSubscriptionSweep, SUBSCRIPTION_SWEEP_MS } from './subscriptions/sweep';
import { secureSigningSecrets } from './webhooks/signing-secrets';
import { PAY_SETTLEMENT_JOB, paySettlementJob } from './settlements/pay-settlement';
import { SETTLEMENT_SWEEP_MS, sweepSettlements } from './settlements/sweep-settlements';

/**
 * Every job kind and its handler. Each domain exports its job kinds as constants (the kind enqueued)
 * and a function making the kind's handler; this is the one place they are put together, above the
 * domains and beside the processes that run them (worker.ts, main.ts), so a reader sees all background
 * work of the service here.
 */
export function jobHandlers(ctx: AppContext): Map<string, JobKind> {
  return new Map<string, JobKind>([
    [PROCESS_PAYMENT_JOB, processPaymentJob(ctx)],
    [SETTLE_REFUND_JOB, settleRefundJob(ctx)],
    [PROCESS_PAYOUT_JOB, processPayoutJob(ctx)],
    // A payment's status change, told to its checkout session (checkout/payment-changed.ts).
    [PAYMENT_CHANGED_JOB, paymentChangedJob(ctx)],
    // A processor's word about a dispute, kept by its connector (disputes/apply-notices.ts).
    [DISPUTE_NOTICE_JOB, disputeNoticeJob(ctx)],
    // A settlement sent to the merchant's own bank account (settlements/pay-settlement.ts).
    [PAY_SETTLEMENT_JOB, paySettlementJob(ctx)],
  ]);
}

/** Periodic sweeps (expiries, schedules): each runs every `everyMs` in every worker process. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

export function periodicTasks(ctx: AppContext): PeriodicTask[] {
  return [
    { name: 'pre-authorization-ttl', everyMs: 60_000, run: async () => void (await expirePreAuthorizations(ctx)) },
    // What time alone changes in checkout: expiries, boleto compensation, lapsed card claims (checkout/sweep-checkouts.ts).
    { name: 'checkout-sweep', everyMs: 2_000, run: async () => void (await sweepCheckouts(ctx)) },
    // Due subscription periods, due attempts and retries, and settled attempts (subscriptions/sweep.ts).
    { name: 'subscriptions', everyMs: SUBSCRIPTION_SWEEP_MS, run: () => runSubscriptionSweep(ctx) },
    // Dispute deadlines (LOST), their 48-hour warnings, and the sandbox's chargebacks (disputes/sweep-disputes.ts).
    { name: 'disputes', everyMs: 5_000, run: async () => void (await sweepDisputes(ctx)) },
    // Each business day, the available balance above its minimum settled to the merchant's account (settlements/sweep-settlements.ts).
    { name: 'settlements', everyMs: SETTLEMENT_SWEEP_MS, run: async () => void (await sweepSettlements(ctx)) },
    // PIX charges issued by a PSP and still open: read back when no notification came (checkout/pix-charges.ts).
    { name: 'pix-charges', everyMs: 5_000, run: async () => void (await reconcilePixCharges(ctx)) },
    // Paid PIX read back once a day for 92 days, 50 a pass, for a MED devolução whose notification was lost (checkout/pix-returns.ts).
    { name: 'pix-returns', everyMs: 60_000, run: async () => void (await reconcilePixReturns(ctx)) },
    // Boletos registered with a bank: remessas written into the outbox, retornos imported from the inbox, each COLIBRI_BOLETO_SWEEP_MS (checkout/boleto-bank.ts).
    { name: 'boleto-files', everyMs: 5_000, run: async () => void (await sweepBoletoFiles(ctx)) },
    // Payouts a connector accepted and has not settled, read back when due: 30 s after, then twice as late up to an hour (payouts/payout-dispatch.ts).
    { name: 'payout-dispatches', everyMs: 5_000, run: async () => void (await recheckPayouts(ctx)) },
    // New merchants' callback secrets into encrypted custody; expired ones deleted (webhooks/signing-secrets.ts).
    { name: 'webhook-secrets', everyMs: 60_000, run: async () => void (await secureSigningSecrets(ctx.db, ctx.secretBox)) },
    // Statistics for tables that doubled since last measured, so young tables are not planned blind (db/planner-statistics.ts).
    { name: 'planner-statistics', everyMs: 2_000, run: async () => void (await analyseGrownTables(ctx.db)) },
    { name: 'idempotency-purge', everyMs: 3_600_000, run: async () => void (await purgeExpiredIdempotencyKeys(ctx.db)) },
    // Events whose callbacks are settled, older than COLIBRI_EVENT_RETENTION_DAYS, with their deliveries (webhooks/retention.ts).
    { name: 'event-retention', everyMs: 3_600_000, run: async () => void (await purgeEventsPastRetention(ctx)) },
  ];
}
