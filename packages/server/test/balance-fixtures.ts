import { sql } from 'kysely';
import { expect } from 'vitest';
import { exponentOf } from '../src/lib/currencies';
import type { TestMerchant, TestService } from './harness';

/** A merchant's balance in one currency, as `GET /balance` answers it. */
export interface ApiBalance {
  asset: string;
  available: number;
  pending: number;
  reserved: number;
}

/**
 * The balance is its transactions: after every kind of movement, the nets of a merchant's balance
 * transactions add up, per currency, to available + pending + reserved (contract), and to what the ledger's
 * balance accounts owe the merchant. Answers the balances of `GET /balance`.
 * @example const [brl] = await assertBooksAgree(service(), m);
 */
export async function assertBooksAgree(service: TestService, m: TestMerchant): Promise<ApiBalance[]> {
  const api = await service.get('/balance', { token: m.token });
  expect(api.status).toBe(200);
  const transactions: { net: number; asset: string }[] = [];
  for (let page = 0; ; page += 1) {
    const listed = await service.get(`/balance/transactions?size=100&page=${page}`, { token: m.token });
    transactions.push(...listed.body.content);
    if (listed.body.last) break;
  }
  const ledger = await sql<{ currency: string; owed: string }>`
    select currency, (-sum(amount_minor))::text as owed from ledger_entries
    where merchant_id = ${m.merchant_id} and account in ('merchant_payable', 'reserve_held', 'disputes_held') group by currency`.execute(service.ctx.db);
  for (const b of api.body.balances as ApiBalance[]) {
    // In minor units of the currency (cents of BRL, whole pesos of CLP), as the ledger counts.
    const cents = (n: number) => Math.round(n * 10 ** exponentOf(b.asset));
    const nets = transactions.filter((t) => t.asset === b.asset).reduce((sum, t) => sum + cents(t.net), 0);
    expect(cents(b.available) + cents(b.pending) + cents(b.reserved), `${b.asset}: balance = sum of nets`).toBe(nets);
    expect(String(nets), `${b.asset}: the ledger owes as much`).toBe(ledger.rows.find((r) => r.currency === b.asset)?.owed);
  }
  return api.body.balances as ApiBalance[];
}

/**
 * Moves the merchant's clock on by `days`, or further when that does not pass `day` (a balance day,
 * YYYY-MM-DD): money becomes available on a business day, so a payment's day 30 days on falls 32 or more
 * days on when the 30th day is a Saturday or a holiday (a test that moved a fixed 31 days failed on every
 * Thursday). It stops 36 hours into the day after `day` in UTC, which is past that day in every time zone of
 * the merchant's currencies.
 * @example await advanceClockPast(service(), m, payment.available_on, 31);
 */
export async function advanceClockPast(service: TestService, m: TestMerchant, day: string, days: number): Promise<void> {
  const clock = await service.get('/sandbox/clock', { token: m.token });
  expect(clock.status, clock.text).toBe(200);
  const past = Date.parse(`${day}T00:00:00Z`) + 36 * 3_600_000;
  const seconds = Math.max(days * 86_400, Math.ceil((past - Date.parse(clock.body.now)) / 1000));
  const moved = await service.post('/sandbox/clock/advance', { seconds }, { token: m.token });
  expect(moved.status, moved.text).toBe(200);
}
