import { sql } from 'kysely';
import { Type } from 'typebox';
import { merchantBalances } from '../balance/balance';
import { listBalanceTransactions, type BalanceTransactionView } from '../balance/list-transactions';
import { upcomingAvailability } from '../balance/upcoming';
import { principalOf, type App, type AppContext } from '../context';
import type { Db } from '../db/database';
import { StringEnum } from '../http/schema-kit';
import { BALANCE_TYPES } from '../ledger/ledger';
import { exponentOf } from '../lib/currencies';
import { isUuid } from '../lib/identifiers';
import { formatAmount } from '../lib/money';

/** The days ahead the page shows money becoming available. */
export const UPCOMING_DAYS = 60;

function money(minor: bigint, currency: string): string {
  return formatAmount(minor, exponentOf(currency));
}

function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The dashboard's balance (docs/dashboard.md, "Balance"): the three figures per currency of `GET /balance`
 * (balance/balance.ts), the money not yet available by the day it will be for the next 60 days
 * (balance/upcoming.ts), and the balance transactions of `GET /balance/transactions`, each with what it
 * came from. Read only; amounts are exact decimal strings, as in the overview.
 * @example registerDashboardBalance(scope, ctx, '/dashboard/api');
 */
export function registerDashboardBalance(scope: App, ctx: AppContext, api: string): void {
  scope.get(`${api}/balance`, async (request) => {
    const merchantId = principalOf(request).merchantId;
    const [balances, upcoming] = await Promise.all([merchantBalances(ctx.db, merchantId), upcomingAvailability(ctx.db, merchantId, UPCOMING_DAYS)]);
    return {
      horizon_days: UPCOMING_DAYS,
      balances: balances.map((b) => ({ currency: b.currency, available: money(b.available, b.currency), pending: money(b.pending, b.currency), reserved: money(b.reserved, b.currency) })),
      // Every day of the period, so the chart's axis is the calendar; the table keeps the days with money.
      upcoming: upcoming.map((u) => {
        const byDay = new Map(u.days.map((d) => [d.day, d]));
        const days = Array.from({ length: UPCOMING_DAYS }, (_, i) => addDays(u.today, i + 1));
        return {
          currency: u.currency,
          today: u.today,
          until: u.until,
          days,
          pending: days.map((day) => money(byDay.get(day)?.pending ?? 0n, u.currency)),
          reserved: days.map((day) => money(byDay.get(day)?.reserved ?? 0n, u.currency)),
          later: { pending: money(u.later.pending, u.currency), reserved: money(u.later.reserved, u.currency) },
          held: money(u.held, u.currency),
        };
      }),
    };
  });

  scope.get(
    `${api}/balance/transactions`,
    {
      schema: {
        querystring: Type.Object({
          type: Type.Optional(StringEnum(BALANCE_TYPES)),
          page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
          size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
        }),
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const page = await listBalanceTransactions(ctx.readDb, merchantId, request.query);
      const sources = await sourcesOf(ctx.readDb, merchantId, page.content);
      return {
        rows: page.content.map((row) => ({ ...row, source: sources.get(`${row.type}:${row.source_id}`) ?? null })),
        total: page.totalElements,
        page: request.query.page,
        size: request.query.size,
      };
    },
  );
}

/** Where a balance transaction leads in the dashboard: a payment or dispute page, a payout, or a settlement. */
export interface TransactionSource {
  kind: 'payment' | 'dispute' | 'payout' | 'settlement';
  id: string;
  /** The merchant's reference of the payment, dispute or payout; a settlement's date (YYYY-MM-DD). */
  reference: string;
}

/**
 * The sources of a page of transactions, read in one query per kind, keyed `type:source_id`: a PAYMENT's
 * payment, a REFUND's payment (through the refund), a DISPUTE's, FEE's and DISPUTE_REVERSAL's dispute, a
 * PAYOUT's payout, a SETTLEMENT's settlement. Each read is the signed-in merchant's only.
 */
async function sourcesOf(db: Db, merchantId: string, rows: BalanceTransactionView[]): Promise<Map<string, TransactionSource>> {
  const ids = (...types: string[]) => [...new Set(rows.filter((r) => types.includes(r.type)).map((r) => r.source_id))];
  const payments = ids('PAYMENT');
  const refunds = ids('REFUND').filter((id) => /^\d{1,18}$/.test(id));
  const disputes = ids('DISPUTE', 'FEE', 'DISPUTE_REVERSAL');
  const payouts = ids('PAYOUT');
  const settlements = ids('SETTLEMENT').filter(isUuid);
  const [paymentRows, refundRows, disputeRows, payoutRows, settlementRows] = await Promise.all([
    payments.length === 0 ? [] : db.selectFrom('payments').select(['payment_token', 'reference_id']).where('merchant_id', '=', merchantId).where('payment_token', 'in', payments).execute(),
    refunds.length === 0
      ? []
      : db
          .selectFrom('refunds')
          .innerJoin('payments', (join) => join.onRef('payments.payment_token', '=', 'refunds.payment_token').onRef('payments.merchant_id', '=', 'refunds.merchant_id'))
          .select(['refunds.refund_id', 'refunds.payment_token', 'payments.reference_id'])
          .where('refunds.merchant_id', '=', merchantId)
          .where('refunds.refund_id', 'in', refunds.map(BigInt))
          .execute(),
    disputes.length === 0 ? [] : db.selectFrom('disputes').select(['dispute_id', 'reference_id']).where('merchant_id', '=', merchantId).where('dispute_id', 'in', disputes).execute(),
    payouts.length === 0 ? [] : db.selectFrom('payouts').select(['tx_id', 'reference_id']).where('merchant_id', '=', merchantId).where('tx_id', 'in', payouts).execute(),
    settlements.length === 0
      ? []
      : db
          .selectFrom('settlements')
          .select(['settlement_id', sql<string>`settlement_day::text`.as('settlement_day')])
          .where('merchant_id', '=', merchantId)
          .where('settlement_id', 'in', settlements)
          .execute(),
  ]);
  const found = new Map<string, TransactionSource>();
  for (const p of paymentRows) found.set(`PAYMENT:${p.payment_token}`, { kind: 'payment', id: p.payment_token, reference: p.reference_id });
  for (const r of refundRows) found.set(`REFUND:${r.refund_id}`, { kind: 'payment', id: r.payment_token, reference: r.reference_id });
  for (const d of disputeRows) for (const type of ['DISPUTE', 'FEE', 'DISPUTE_REVERSAL']) found.set(`${type}:${d.dispute_id}`, { kind: 'dispute', id: d.dispute_id, reference: d.reference_id });
  for (const p of payoutRows) found.set(`PAYOUT:${p.tx_id}`, { kind: 'payout', id: p.tx_id, reference: p.reference_id });
  for (const s of settlementRows) found.set(`SETTLEMENT:${s.settlement_id}`, { kind: 'settlement', id: s.settlement_id, reference: s.settlement_day });
  return found;
}
