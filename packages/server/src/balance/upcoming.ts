import { sql } from 'kysely';
import { clockAt } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { balanceDay } from '../ledger/ledger';

/** What becomes available on one day, in minor units. */
export interface UpcomingDay {
  /** YYYY-MM-DD, a day after today in the currency's balance day (balanceDay). */
  day: string;
  /** The pending part that becomes available that day. */
  pending: bigint;
  /** The reserved part (a rolling reserve) released that day. */
  reserved: bigint;
}

/** A currency's money that is not available yet, by the day it will be. */
export interface UpcomingAvailability {
  currency: string;
  /** The merchant's day in this currency: the days listed come after it. */
  today: string;
  /** The last day counted: today plus the days asked for. */
  until: string;
  /** Days with a movement, in order; a day without one is left out. */
  days: UpcomingDay[];
  /** What becomes available after `until`. */
  later: { pending: bigint; reserved: bigint };
  /** Reserved without a day: what open disputes hold until they are decided. */
  held: bigint;
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The merchant's pending and reserved money by the day it becomes available, per currency, for the `days`
 * days after the merchant's today (on its clock, in each currency's balance day). With `later` and `held`,
 * a currency's days add up to its pending + reserved of merchantBalances. Only currencies with money not
 * available yet are listed.
 * @example const [brl] = await upcomingAvailability(db, merchantId, 60);
 * // { currency: 'BRL', today: '2026-11-27', until: '2027-01-26', days: [{ day: '2026-12-28', pending: 9624n, reserved: 0n }], later: {…}, held: 0n }
 */
export async function upcomingAvailability(db: Db, merchantId: string, days: number): Promise<UpcomingAvailability[]> {
  const merchant = await db.selectFrom('merchants').select('clock_offset_ms').where('id', '=', merchantId).executeTakeFirstOrThrow();
  const now = clockAt(merchant.clock_offset_ms);
  // Every currency's balance day is the UTC day or the one before it: the query takes a day more, the
  // loop below keeps each currency's own.
  const earliest = addDays(now.toISOString().slice(0, 10), -1);
  const rows = await db
    .selectFrom('balance_transactions')
    .select(['currency', 'bucket', sql<string | null>`available_on::text`.as('available_on'), sql<string>`sum(net_minor)::text`.as('net')])
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb.or([eb('available_on', 'is', null), eb('available_on', '>', earliest)]))
    .groupBy(['currency', 'bucket', 'available_on'])
    .orderBy('available_on')
    .execute();
  const byCurrency = new Map<string, UpcomingAvailability>();
  const entry = (currency: string) => {
    let found = byCurrency.get(currency);
    if (!found) {
      const today = balanceDay(now, currency);
      found = { currency, today, until: addDays(today, days), days: [], later: { pending: 0n, reserved: 0n }, held: 0n };
      byCurrency.set(currency, found);
    }
    return found;
  };
  for (const row of rows) {
    const net = BigInt(row.net);
    const upcoming = entry(row.currency);
    const part = row.bucket === 'BALANCE' ? 'pending' : 'reserved';
    if (row.available_on === null) {
      // A BALANCE movement without a day is available at once (merchantBalances).
      if (row.bucket === 'RESERVED') upcoming.held += net;
    } else if (row.available_on <= upcoming.today) {
      continue;
    } else if (row.available_on > upcoming.until) {
      upcoming.later[part] += net;
    } else {
      let day = upcoming.days.at(-1);
      if (day?.day !== row.available_on) {
        day = { day: row.available_on, pending: 0n, reserved: 0n };
        upcoming.days.push(day);
      }
      day[part] += net;
    }
  }
  return [...byCurrency.values()]
    .filter((u) => u.days.length > 0 || u.later.pending !== 0n || u.later.reserved !== 0n || u.held !== 0n)
    .sort((a, b) => a.currency.localeCompare(b.currency));
}
