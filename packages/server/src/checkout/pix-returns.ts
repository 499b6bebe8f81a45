import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import { recordOutcome, wakeWaitingJob } from '../connectors/operations';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { attemptOutcome } from '../processor/processor';
import { pixIssuerFor, RETURNS_SUFFIX } from './pix-charges';

/**
 * Reading back the returns of PIX Colibri applied to payments, for a MED devolução whose webhook was
 * lost (docs/disputes.md, "MED"). The PSP notifies every devolução that reaches a final status, so this
 * is the safety net, kept cheap:
 * - a PIX is watched from its payment (pix-charges.ts `receivePix` opens `<payment_token>:returns` in
 *   the connector's books) for RETURNS_WINDOW_DAYS, the longest a MED can take: the payer's bank may file
 *   the infraction up to 80 days after the PIX, the receiver's PSP has 7 to decide, the return is asked
 *   for within 72 hours and paid within 24, 91 days in all;
 * - each watched PIX is read (`GET /pix/{e2eid}`) once every RETURNS_CHECK_EVERY_MS (a day), at most
 *   RETURNS_LIMIT per pass, a pass a minute (job-registry.ts): up to 72,000 readings a day, which keeps
 *   every PIX of about 780 payments a day read daily; beyond that, the one read longest ago goes first;
 * - a payment fully refunded can take no more returns, and one past the window no MED: its watch ends.
 */

/** How often a watched PIX is read back. */
export const RETURNS_CHECK_EVERY_MS = 24 * 60 * 60 * 1000;
/** How long after its payment a PIX is watched. */
export const RETURNS_WINDOW_DAYS = 92;
/** PIX read back per pass, at most; the rest wait for the next one. */
const RETURNS_LIMIT = 50;
/** A PIX whose reading the PSP did not answer (nor the rest of that pass) is read again this much later. */
const RETRY_AFTER_MS = 5 * 60 * 1000;

/**
 * Claims the watched PIX last read `olderThanMs` ago (a day unless told), marking them read now so
 * that other processes skip them, and reads each back with its merchant's connector, which records
 * what its devoluções say (a MED as a dispute notice; connectors/pix/pix-returns.ts). The pass stops at
 * the first PSP that is unreachable, slow or limiting the rate: the PIX left are read again in five
 * minutes. Returns how many were claimed.
 * @example await reconcilePixReturns(ctx, { olderThanMs: 0 });
 */
export async function reconcilePixReturns(ctx: AppContext, options: { olderThanMs?: number } = {}): Promise<number> {
  const olderThanMs = options.olderThanMs ?? RETURNS_CHECK_EVERY_MS;
  const { rows } = await sql<{ connector: string; merchant_id: string; reference: string; provider_reference: string | null }>`
    update connector_operations set updated_at = now()
    where (connector, reference, merchant_id) in (
      select connector, reference, merchant_id from connector_operations
      where result->>'status' = 'PENDING' and reference like '%:returns'
        and updated_at <= now() - ${olderThanMs} * interval '1 millisecond'
      order by updated_at
      limit ${RETURNS_LIMIT}
      for update skip locked)
    returning connector, merchant_id, reference, provider_reference`.execute(ctx.db);
  let unexpected: unknown;
  for (const [index, row] of rows.entries()) {
    const paymentToken = row.reference.slice(0, -RETURNS_SUFFIX.length);
    const payment = await ctx.db.selectFrom('payments').select(['status', 'currency', 'end_to_end_id', 'paid_at']).where('payment_token', '=', paymentToken).where('merchant_id', '=', row.merchant_id).executeTakeFirst();
    const endToEndId = row.provider_reference ?? '';
    if (!payment || payment.end_to_end_id !== endToEndId || payment.status === 'REFUNDED') {
      await endWatch(ctx.db, row, endToEndId);
      continue;
    }
    const issuer = await pixIssuerFor(ctx, row.merchant_id);
    try {
      // A merchant whose PIX is now served by another connector keeps the watch, read again when it is back.
      if (issuer && issuer.id === row.connector) {
        const read = await issuer.readPixReturns({ merchantId: row.merchant_id, paymentToken, currency: payment.currency, endToEndId });
        for (const reference of read?.settled ?? []) await wakeWaitingJob(ctx.db, reference);
      }
    } catch (error) {
      if (!attemptOutcome(error)) {
        unexpected ??= error;
        continue;
      }
      await readAgainSoon(ctx.db, rows.slice(index));
      break;
    }
    const now = await merchantNow(ctx.db, row.merchant_id);
    const paidAt = payment.paid_at ?? now;
    if (now.getTime() - paidAt.getTime() > RETURNS_WINDOW_DAYS * 24 * 60 * 60 * 1000) await endWatch(ctx.db, row, endToEndId);
  }
  if (rows.length > 0) ctx.workerSignal.poke();
  if (unexpected) throw unexpected;
  return rows.length;
}

/** The watch of a PIX ends: no return can come any more that Colibri would record. */
async function endWatch(db: Db, row: { connector: string; merchant_id: string; reference: string }, endToEndId: string): Promise<void> {
  await recordOutcome(db, { connector: row.connector, merchantId: row.merchant_id, reference: row.reference, providerReference: endToEndId, outcome: { status: 'APPROVED', processorId: endToEndId } });
}

async function readAgainSoon(db: Db, rows: readonly { connector: string; merchant_id: string; reference: string }[]): Promise<void> {
  for (const row of rows) {
    await db
      .updateTable('connector_operations')
      .set({ updated_at: sql<Date>`now() - ${RETURNS_CHECK_EVERY_MS - RETRY_AFTER_MS} * interval '1 millisecond'` })
      .where('connector', '=', row.connector)
      .where('reference', '=', row.reference)
      .where('merchant_id', '=', row.merchant_id)
      .execute();
  }
}
