import { sql } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { balanceDay } from '../ledger/ledger';

/** A merchant's balance in one currency, in minor units (docs/balance-and-settlements.md). */
export interface CurrencyBalance {
  currency: string;
  /** Money the merchant can be paid now: its movements whose day has come, less what went out. */
  available: bigint;
  /** Money captured whose day has not come (the method's schedule). */
  pending: bigint;
  /** Money held: the rolling reserve until its day, and what open disputes hold. */
  reserved: bigint;
}

/**
 * A merchant's balance per currency, from its balance transactions, on the merchant's clock: a BALANCE
 * transaction is available from its `available_on` day (pending before), a RESERVED one is reserved until
 * its day (a rolling reserve) or for as long as it has none (what a dispute holds). So the three always
 * add up to the transactions' nets. `today` overrides the merchant's day (per currency: balanceDay).
 * @example const [brl] = await merchantBalances(db, merchantId) // { currency: 'BRL', available: 9624n, pending: 0n, reserved: 0n }
 */
export async function merchantBalances(db: Db, merchantId: string, options: { today?: (currency: string) => string } = {}): Promise<CurrencyBalance[]> {
  const merchant = await db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId).executeTakeFirstOrThrow();
  const now = clockAt(merchant.clock_offset_ms);
  const today = options.today ?? ((currency: string) => balanceDay(now, currency));
  const rows = await db
    .selectFrom('balance_transactions')
    .select(['currency', 'bucket', sql<string | null>`available_on::text`.as('available_on'), sql<string>`sum(net_minor)::text`.as('net')])
    .where('merchant_id', '=', merchantId)
    .groupBy(['currency', 'bucket', 'available_on'])
    .execute();
  const byCurrency = new Map<string, CurrencyBalance>();
  for (const row of rows) {
    const balance = byCurrency.get(row.currency) ?? { currency: row.currency, available: 0n, pending: 0n, reserved: 0n };
    const due = row.available_on === null ? row.bucket === 'BALANCE' : row.available_on <= today(row.currency);
    const net = BigInt(row.net);
    if (due) balance.available += net;
    else if (row.bucket === 'BALANCE') balance.pending += net;
    else balance.reserved += net;
    byCurrency.set(row.currency, balance);
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}
