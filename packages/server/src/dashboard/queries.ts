import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { formatAmount } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { isUuid } from '../lib/identifiers';

/**
 * The dashboard's read models: lists with search and paging, and the overview's daily figures. The
 * API has no list of payments, checkouts or payouts (the spec reads them one at a time), so these
 * queries are the dashboard's own; every one filters by the signed-in merchant. Actions never live
 * here: they call the domain verbs (see routes.ts).
 */

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  size: number;
}

export interface PaymentSearch {
  q?: string | undefined;
  status?: string | undefined;
  method?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  page: number;
  size: number;
}

/** `YYYY-MM-DD` plus days, in UTC (the merchant's dates are UTC dates of its clock). */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function money(minor: bigint | string | number, currency: string): string {
  return formatAmount(BigInt(minor), exponentOf(currency));
}

/** Escapes `%`, `_` and `\` so that the searched text is matched literally by `like`. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Payments of the merchant, newest first. `q` matches a payment token exactly or a reference id by
 * prefix; status and method match exactly; `from` and `to` are dates of the merchant's clock, both
 * included.
 * @example await listPayments(db, merchantId, { q: 'order-42', page: 0, size: 20 });
 */
export async function listPayments(db: Db, merchantId: string, search: PaymentSearch) {
  let query = db.selectFrom('payments').where('merchant_id', '=', merchantId);
  const q = search.q?.trim();
  if (q) {
    query = isUuid(q)
      ? query.where((eb) => eb.or([eb('payment_token', '=', q), eb('reference_id', '=', q)]))
      : query.where('reference_id', 'like', `${likeLiteral(q)}%`);
  }
  if (search.status) query = query.where('status', '=', search.status);
  if (search.method) query = query.where('method', '=', search.method);
  if (search.from) query = query.where('created_at', '>=', new Date(`${search.from}T00:00:00Z`));
  if (search.to) query = query.where('created_at', '<', new Date(`${addDays(search.to, 1)}T00:00:00Z`));
  const [rows, count] = await Promise.all([
    query
      .select(['payment_token', 'reference_id', 'method', 'status', 'amount_minor', 'currency', 'refunded_minor', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('payment_token')
      .limit(search.size)
      .offset(search.page * search.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      payment_token: r.payment_token,
      reference_id: r.reference_id,
      method: r.method,
      status: r.status,
      amount: money(r.amount_minor, r.currency),
      refunded: money(r.refunded_minor, r.currency),
      currency: r.currency,
      created_at: r.created_at.toISOString(),
    })),
    total: Number(count.n),
    page: search.page,
    size: search.size,
  };
}

/** Hosted checkout sessions, newest first, optionally of one status. */
export async function listCheckouts(db: Db, merchantId: string, search: { status?: string | undefined; page: number; size: number }) {
  let query = db.selectFrom('checkout_sessions').where('merchant_id', '=', merchantId);
  if (search.status) query = query.where('status', '=', search.status);
  const [rows, count] = await Promise.all([
    query
      .select(['checkout_id', 'reference_id', 'status', 'methods', 'amount_minor', 'currency', 'attempts', 'created_at', 'expires_at'])
      .orderBy('created_at', 'desc')
      .orderBy('checkout_id')
      .limit(search.size)
      .offset(search.page * search.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      checkout_id: r.checkout_id,
      reference_id: r.reference_id,
      status: r.status,
      methods: r.methods,
      amount: money(r.amount_minor, r.currency),
      currency: r.currency,
      attempts: r.attempts,
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
    })),
    total: Number(count.n),
    page: search.page,
    size: search.size,
  };
}

/** Payouts, newest first, optionally of one status. */
export async function listPayouts(db: Db, merchantId: string, search: { status?: string | undefined; page: number; size: number }) {
  let query = db.selectFrom('payouts').where('merchant_id', '=', merchantId);
  if (search.status) query = query.where('status', '=', search.status as never);
  const [rows, count] = await Promise.all([
    query
      .select(['tx_id', 'reference_id', 'status', 'method', 'country', 'amount_minor', 'currency', 'full_name', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('tx_id')
      .limit(search.size)
      .offset(search.page * search.size)
      .execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({
      tx_id: r.tx_id,
      reference_id: r.reference_id,
      status: r.status,
      method: r.method,
      country: r.country,
      amount: money(r.amount_minor, r.currency),
      currency: r.currency,
      full_name: r.full_name,
      created_at: r.created_at.toISOString(),
    })),
    total: Number(count.n),
    page: search.page,
    size: search.size,
  };
}

/** Payment statuses the processor approved: the numerator of the approval rate. */
const APPROVED = ['PAID', 'PRE_AUTHORIZED', 'PARTIALLY_REFUNDED', 'REFUNDED'];
/** Statuses that ended without money: approved ones plus these are the denominator. */
const REFUSED = ['DECLINED', 'ERROR'];
/** The longest period the overview computes in one request. */
const MAX_PERIOD_DAYS = 366;

export interface OverviewSeries {
  /** One entry per day of the period, `YYYY-MM-DD`. */
  days: string[];
  currency: string;
  /** Approved volume per method, one decimal string per day. */
  volume: Record<string, string[]>;
  /** Approved ÷ (approved + declined + errors) per day, or null on a day without such payments. */
  approval_rate: (number | null)[];
  refunds: string[];
  payouts: string[];
  /** The currencies that had any movement in the period, for the currency picker. */
  currencies: string[];
}

/**
 * Daily figures of one period on the merchant's clock: domain timestamps are written in that clock,
 * so a UTC date of `created_at` is the merchant's day. Without dates, the last 30 days up to the
 * merchant's today. Sums are exact (bigint) and leave as decimal strings.
 * @example await overview(db, merchantId, { from: '2026-01-01', to: '2026-01-31', currency: 'BRL' });
 */
export async function overview(db: Db, merchantId: string, input: { from?: string | undefined; to?: string | undefined; currency?: string | undefined }): Promise<OverviewSeries> {
  const today = (await merchantNow(db, merchantId)).toISOString().slice(0, 10);
  const to = input.to ?? today;
  const from = input.from ?? addDays(to, -29);
  const length = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  if (!(length >= 1 && length <= MAX_PERIOD_DAYS)) throw new ApiError('DASHBOARD_PERIOD_INVALID');
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(`${addDays(to, 1)}T00:00:00Z`);
  const days = Array.from({ length }, (_, i) => addDays(from, i));
  const day = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`;

  const [payments, refunds, payouts] = await Promise.all([
    db
      .selectFrom('payments')
      .select([day.as('day'), 'method', 'currency'])
      .select(sql<string>`sum(case when status in (${sql.join(APPROVED)}) then amount_minor else 0 end)::text`.as('approved_minor'))
      .select(sql<string>`count(*) filter (where status in (${sql.join(APPROVED)}))::text`.as('approved'))
      .select(sql<string>`count(*) filter (where status in (${sql.join(REFUSED)}))::text`.as('refused'))
      .where('merchant_id', '=', merchantId)
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy([day, 'method', 'currency'])
      .execute(),
    db
      .selectFrom('refunds')
      .select([day.as('day'), 'currency'])
      .select(sql<string>`sum(amount_minor)::text`.as('minor'))
      .where('merchant_id', '=', merchantId)
      .where('status', '!=', 'FAILED')
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy([day, 'currency'])
      .execute(),
    db
      .selectFrom('payouts')
      .select([day.as('day'), 'currency'])
      .select(sql<string>`sum(amount_minor)::text`.as('minor'))
      .where('merchant_id', '=', merchantId)
      .where('status', 'not in', ['REJECTED', 'CANCELED'])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy([day, 'currency'])
      .execute(),
  ]);

  const currencies = [...new Set([...payments, ...refunds, ...payouts].map((r) => r.currency))].sort();
  const currency = input.currency ?? (currencies.includes('BRL') || currencies.length === 0 ? 'BRL' : currencies[0]!);
  const index = new Map(days.map((d, i) => [d, i]));
  const zeros = () => days.map(() => 0n);

  const volume = new Map<string, bigint[]>();
  const approved = days.map(() => 0);
  const decided = days.map(() => 0);
  for (const row of payments) {
    const i = index.get(row.day);
    if (i === undefined) continue;
    // The approval rate counts every currency: it is a ratio of payments, not of money.
    approved[i]! += Number(row.approved);
    decided[i]! += Number(row.approved) + Number(row.refused);
    if (row.currency !== currency) continue;
    const series = volume.get(row.method) ?? zeros();
    series[i]! += BigInt(row.approved_minor);
    volume.set(row.method, series);
  }
  const daily = (rows: { day: string; currency: string; minor: string }[]) => {
    const series = zeros();
    for (const row of rows) {
      const i = index.get(row.day);
      if (i !== undefined && row.currency === currency) series[i]! += BigInt(row.minor);
    }
    return series.map((minor) => money(minor, currency));
  };
  return {
    days,
    currency,
    volume: Object.fromEntries([...volume].sort(([a], [b]) => a.localeCompare(b)).map(([method, series]) => [method, series.map((m) => money(m, currency))])),
    approval_rate: days.map((_, i) => (decided[i]! === 0 ? null : Math.round((approved[i]! / decided[i]!) * 10_000) / 10_000)),
    refunds: daily(refunds),
    payouts: daily(payouts),
    currencies,
  };
}
