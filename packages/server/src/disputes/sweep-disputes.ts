import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { lockPayment } from '../payments/payment-record';
import { disputeReason } from '../rails/cards';
import { announce, changeDisputeStatus, openDispute, type DisputeRow } from './dispute-record';

/** The merchant's clock in SQL, for a sweep that joins `merchants`. */
const MERCHANT_NOW = sql`now() + (merchants.clock_offset_ms * interval '1 millisecond')`;

/** How long before the deadline the merchant is warned. */
export const WARNING_BEFORE_MS = 48 * 3_600_000;

/** The contract's dispute test card (CONTRACTS.md, Disputes): its BIN and last four digits, as cards keep them. */
export const DISPUTE_TEST_CARD = { number: '4000000000000259', bin: '400000', last4: '0259' } as const;
/** The sandbox's chargeback comes this long after the payment, and the merchant has this long to answer. */
export const SANDBOX_DISPUTE_AFTER_MS = 86_400_000;
export const SANDBOX_RESPONSE_WINDOW_MS = 7 * 86_400_000;

/**
 * What time alone changes in disputes, on each merchant's clock (docs/disputes.md, "Deadlines"):
 * a dispute still NEEDS_RESPONSE at `evidence_due_by` is LOST; one whose deadline is 48 hours away or
 * less is warned once by callback; and in sandbox, a payment of the dispute test card is disputed a day
 * after it was paid. Each dispute moves in its own transaction under its payment's lock.
 */
export async function sweepDisputes(ctx: AppContext): Promise<number> {
  let moved = 0;
  const overdue = await ctx.db
    .selectFrom('disputes')
    .innerJoin('merchants', 'merchants.id', 'disputes.merchant_id')
    .select(['disputes.dispute_id', 'disputes.merchant_id', 'disputes.payment_token'])
    .where('disputes.status', '=', 'NEEDS_RESPONSE')
    .where(sql<boolean>`disputes.evidence_due_by <= ${MERCHANT_NOW}`)
    .limit(500)
    .execute();
  for (const due of overdue) {
    moved += await underPaymentLock(ctx, due, async (trx, dispute, now) => {
      if (dispute.status !== 'NEEDS_RESPONSE' || !dispute.evidence_due_by || dispute.evidence_due_by > now) return 0;
      await changeDisputeStatus(trx, dispute, 'LOST', now);
      return 1;
    });
  }

  const soon = await ctx.db
    .selectFrom('disputes')
    .innerJoin('merchants', 'merchants.id', 'disputes.merchant_id')
    .select(['disputes.dispute_id', 'disputes.merchant_id', 'disputes.payment_token'])
    .where('disputes.status', '=', 'NEEDS_RESPONSE')
    .where('disputes.warned_at', 'is', null)
    .where(sql<boolean>`disputes.evidence_due_by <= ${MERCHANT_NOW} + (${WARNING_BEFORE_MS} * interval '1 millisecond')`)
    .limit(500)
    .execute();
  for (const due of soon) {
    moved += await underPaymentLock(ctx, due, async (trx, dispute, now) => {
      if (dispute.status !== 'NEEDS_RESPONSE' || dispute.warned_at !== null) return 0;
      const warned = await trx.updateTable('disputes').set({ warned_at: now }).where('dispute_id', '=', dispute.dispute_id).where('merchant_id', '=', dispute.merchant_id).returningAll().executeTakeFirstOrThrow();
      await announce(trx, warned, 'EVIDENCE_DUE_SOON');
      return 1;
    });
  }

  if (ctx.config.mode === 'sandbox') moved += await openSandboxDisputes(ctx);
  if (moved > 0) ctx.workerSignal.poke();
  return moved;
}

/** Runs `change` on a dispute under its payment's row lock, with the merchant's clock read first. */
async function underPaymentLock(
  ctx: AppContext,
  due: { dispute_id: string; merchant_id: string; payment_token: string },
  change: (trx: AppContext['db'], dispute: DisputeRow, now: Date) => Promise<number>,
): Promise<number> {
  const now = await merchantNow(ctx.db, due.merchant_id);
  return ctx.db.transaction().execute(async (trx) => {
    await lockPayment(trx, due.merchant_id, due.payment_token);
    const dispute = await trx.selectFrom('disputes').selectAll().where('dispute_id', '=', due.dispute_id).where('merchant_id', '=', due.merchant_id).forUpdate().executeTakeFirst();
    return dispute ? change(trx, dispute, now) : 0;
  });
}

/**
 * The sandbox's acquirer disputes every payment of the dispute test card, for its full amount, a day
 * after it was paid on the merchant's clock, as a fraud chargeback (Visa reason 10.4).
 */
async function openSandboxDisputes(ctx: AppContext): Promise<number> {
  const due = await ctx.db
    .selectFrom('payments')
    .innerJoin('merchants', 'merchants.id', 'payments.merchant_id')
    .innerJoin('cards', 'cards.id', 'payments.card_id')
    .select(['payments.payment_token', 'payments.merchant_id'])
    .where('cards.bin', '=', DISPUTE_TEST_CARD.bin)
    .where('cards.last4', '=', DISPUTE_TEST_CARD.last4)
    .where('payments.status', '=', 'PAID')
    .where(sql<boolean>`payments.paid_at <= ${MERCHANT_NOW} - (${SANDBOX_DISPUTE_AFTER_MS} * interval '1 millisecond')`)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('disputes').select('dispute_id').whereRef('disputes.payment_token', '=', 'payments.payment_token').where('disputes.processor', '=', 'sandbox'))))
    .limit(500)
    .execute();
  let opened = 0;
  for (const { payment_token, merchant_id } of due) {
    const now = await merchantNow(ctx.db, merchant_id);
    opened += await ctx.db.transaction().execute(async (trx) => {
      const payment = await lockPayment(trx, merchant_id, payment_token);
      if (!payment || payment.status !== 'PAID') return 0;
      const earlier = await trx.selectFrom('disputes').select('dispute_id').where('payment_token', '=', payment_token).where('merchant_id', '=', merchant_id).executeTakeFirst();
      if (earlier) return 0;
      await openDispute(trx, payment, sandboxChargeback(payment.captured_minor + payment.customer_fees_minor, now), now);
      return 1;
    });
  }
  return opened;
}

/**
 * The sandbox's chargeback of `amountMinor`, answerable for 7 days (the sandbox control
 * `POST /sandbox/payments/<token>/dispute` opens others).
 */
export function sandboxChargeback(amountMinor: bigint, now: Date, options: { reasonCode?: string; stage?: 'INQUIRY' | 'CHARGEBACK' } = {}) {
  const reasonCode = options.reasonCode ?? '10.4';
  const reason = disputeReason(reasonCode);
  return {
    processor: 'sandbox' as const,
    amountMinor,
    reasonCode,
    reasonCategory: reason.category,
    reasonDescription: reason.name,
    stage: options.stage ?? 'CHARGEBACK',
    evidenceDueBy: new Date(now.getTime() + SANDBOX_RESPONSE_WINDOW_MS),
  };
}
