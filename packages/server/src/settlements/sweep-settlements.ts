import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { merchantBalances } from '../balance/balance';
import { clockAt } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { balanceDay, postJournal } from '../ledger/ledger';
import { jsonParameter } from '../lib/json';
import { enqueue } from '../jobs/queue';
import { PAY_SETTLEMENT_JOB } from './pay-settlement';
import { settlementCreatedLines, settlementReference, type SettlementRow, SETTLEMENT_COLUMNS } from './settlement-record';
import { arrivalDate, isSettlementCurrency, isSettlementDay, type SettlementCurrency } from './settlement-days';

/** How often the sweep looks for merchants to settle: a business day's settlements go out within this of its start. */
export const SETTLEMENT_SWEEP_MS = 600_000;

/**
 * The settlement schedule (docs/balance-and-settlements.md, "Schedule"): on each business day of a
 * currency's country, on the merchant's clock, every merchant not paused and not held, with a destination in
 * that currency, whose available balance is at least its minimum, gets one settlement of all of it. Returns
 * how many were made.
 *
 * Candidates are read without locks; each is then settled in a transaction of its own (settleCurrency), which
 * decides again under the lock. A merchant already settled today in a currency is not looked at again.
 * @example await sweepSettlements(ctx) // 1
 */
export async function sweepSettlements(ctx: AppContext): Promise<number> {
  const rows = await ctx.db
    .selectFrom('settlement_destinations as d')
    .innerJoin('settlement_settings as s', 's.merchant_id', 'd.merchant_id')
    .innerJoin('merchants as m', 'm.id', 'd.merchant_id')
    .select(['d.merchant_id', 'd.currency', 'm.clock_offset_ms'])
    .where('s.paused', '=', false)
    .where('s.held', '=', false)
    .execute();
  const due = rows
    .filter((row): row is typeof row & { currency: SettlementCurrency } => isSettlementCurrency(row.currency))
    .map((row) => ({ merchant_id: row.merchant_id, currency: row.currency, day: balanceDay(clockAt(row.clock_offset_ms), row.currency) }))
    .filter((row) => isSettlementDay(row.day, row.currency));
  if (due.length === 0) return 0;
  const { rows: settled } = await sql<{ merchant_id: string; currency: string }>`
    select c.merchant_id, c.currency from json_to_recordset(${jsonParameter(due)}::json) as c(merchant_id uuid, currency text, day date)
    where exists (select 1 from settlements s where s.merchant_id = c.merchant_id and s.currency = c.currency and s.settlement_day = c.day)`.execute(ctx.db);
  const done = new Set(settled.map((s) => `${s.merchant_id} ${s.currency}`));
  let made = 0;
  for (const candidate of due) {
    if (done.has(`${candidate.merchant_id} ${candidate.currency}`)) continue;
    if (await settleCurrency(ctx.db, candidate.merchant_id, candidate.currency)) made += 1;
  }
  if (made > 0) ctx.workerSignal.poke();
  return made;
}

/**
 * Makes today's settlement of one merchant's currency, if it is due, in one transaction: the settings row is
 * locked first (so a second sweep, in this process or another, waits here and then sees this one's
 * settlement), every condition is read again under it, the available balance is read inside the same
 * transaction, and the settlement, its journal (which takes the amount out of the available balance) and its
 * payment job are written together. The unique key (merchant, currency, settlement day) would refuse a second
 * settlement of the day even without the lock. Answers the settlement made, or undefined.
 * @example await settleCurrency(db, merchantId, 'BRL')
 */
export async function settleCurrency(db: Db, merchantId: string, currency: SettlementCurrency): Promise<SettlementRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const settings = await trx.selectFrom('settlement_settings').selectAll().where('merchant_id', '=', merchantId).forUpdate().executeTakeFirst();
    if (!settings || settings.paused || settings.held) return undefined;
    const target = await trx.selectFrom('settlement_destinations').selectAll().where('merchant_id', '=', merchantId).where('currency', '=', currency).executeTakeFirst();
    if (!target) return undefined;
    const merchant = await trx.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId).executeTakeFirstOrThrow();
    const now = clockAt(merchant.clock_offset_ms);
    const day = balanceDay(now, currency);
    if (!isSettlementDay(day, currency)) return undefined;
    const balance = (await merchantBalances(trx, merchantId, { today: () => day })).find((b) => b.currency === currency);
    const amount = balance?.available ?? 0n;
    if (amount <= 0n || amount < target.minimum_minor) return undefined;

    const settlementId = randomUUID();
    const created = await trx
      .insertInto('settlements')
      .values({
        settlement_id: settlementId,
        merchant_id: merchantId,
        currency,
        amount_minor: amount,
        status: 'PENDING',
        settlement_day: day,
        destination: JSON.stringify(target.destination),
        arrival_date: arrivalDate(day, currency),
        processor_reference: settlementReference(settlementId),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['currency', 'settlement_day', 'merchant_id']).doNothing())
      .returning(SETTLEMENT_COLUMNS)
      .executeTakeFirst();
    if (!created) return undefined;
    const settlement = created as SettlementRow;
    await postJournal(trx, {
      merchantId,
      kind: 'settlement.created',
      currency,
      resourceId: settlementId,
      at: now,
      balance: { type: 'SETTLEMENT', sourceId: settlementId },
      lines: settlementCreatedLines(settlement, now),
    });
    await enqueue(trx, PAY_SETTLEMENT_JOB, { settlementId, merchantId }, { uniqueKey: settlement.processor_reference });
    return settlement;
  });
}
