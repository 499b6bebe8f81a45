import { sql } from 'kysely';
import type { Db } from '../db/database';
import { springPage, type Page } from '../http/page';
import { toJsonNumber } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { formatDateTime } from '../lib/time-format';
import type { BalanceType } from '../ledger/ledger';

export interface BalanceTransactionQuery {
  page: number;
  size: number;
  type?: BalanceType | undefined;
  /** YYYY-MM-DD, inclusive, on the day the transaction was recorded (UTC, merchant clock). */
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * `GET /balance/transactions`: the merchant's balance transactions, newest first, one page.
 * @example const page = await listBalanceTransactions(db, merchantId, { page: 0, size: 20, type: 'PAYMENT' });
 */
export async function listBalanceTransactions(db: Db, merchantId: string, query: BalanceTransactionQuery): Promise<Page<BalanceTransactionView>> {
  let base = db.selectFrom('balance_transactions').where('merchant_id', '=', merchantId);
  if (query.type) base = base.where('type', '=', query.type);
  if (query.from) base = base.where('created_at', '>=', new Date(`${query.from}T00:00:00Z`));
  if (query.to) base = base.where('created_at', '<', new Date(new Date(`${query.to}T00:00:00Z`).getTime() + 86_400_000));
  const [rows, count] = await Promise.all([
    base
      .select(['id', 'type', 'source_id', 'currency', 'amount_minor', 'fee_minor', 'net_minor', 'bucket', 'created_at', sql<string | null>`available_on::text`.as('available_on')])
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return springPage(rows.map(balanceTransactionView), Number(count.n), query);
}

/** A balance transaction as the API shows it (CONTRACTS.md, Balance). */
export function balanceTransactionView(row: {
  id: string;
  type: string;
  source_id: string;
  currency: string;
  amount_minor: bigint;
  fee_minor: bigint;
  net_minor: bigint;
  bucket: string;
  available_on: string | null;
  created_at: Date;
}) {
  const exponent = exponentOf(row.currency);
  return {
    id: row.id,
    type: row.type as BalanceType,
    source_id: row.source_id,
    amount: toJsonNumber(row.amount_minor, exponent),
    fee: toJsonNumber(row.fee_minor, exponent),
    net: toJsonNumber(row.net_minor, exponent),
    asset: row.currency,
    reserved: row.bucket === 'RESERVED',
    available_on: row.available_on,
    created_at: formatDateTime(row.created_at),
  };
}

export type BalanceTransactionView = ReturnType<typeof balanceTransactionView>;
