import { sql } from 'kysely';
import type { Db } from '../db/database';
import { springPage, type Page } from '../http/page';
import { SETTLEMENT_COLUMNS, settlementView, type SettlementRow, type SettlementView } from './settlement-record';
import type { SettlementStatus } from './states';

export interface SettlementListQuery {
  page: number;
  size: number;
  status?: SettlementStatus | undefined;
  /** YYYY-MM-DD, inclusive, on the settlement's date (the local day it was made for). */
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * `GET /settlements`: the merchant's settlements, newest first, one page with the total count.
 * @example const page = await listSettlements(db, merchantId, { page: 0, size: 20, status: 'PAID' });
 */
export async function listSettlements(db: Db, merchantId: string, query: SettlementListQuery): Promise<Page<SettlementView>> {
  let base = db.selectFrom('settlements').where('merchant_id', '=', merchantId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.from) base = base.where(sql<boolean>`settlement_day >= ${query.from}::date`);
  if (query.to) base = base.where(sql<boolean>`settlement_day <= ${query.to}::date`);
  const [rows, count] = await Promise.all([
    base.select(SETTLEMENT_COLUMNS).orderBy('created_at', 'desc').orderBy('settlement_id').limit(query.size).offset(query.page * query.size).execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return springPage(rows.map((row) => settlementView(row as SettlementRow)), Number(count.n), query);
}
