import type { Db } from '../db/database';
import { springPage, type Page } from '../http/page';
import { searchKey, type Report } from './report-definition';
import { rowToReport } from './report-row';

/** Page sizes of `GET …/myreports/report` (docs/reports.md): the default and the most one page holds. */
export const PAGE_SIZE = { default: 20, max: 100 } as const;
/** The highest page number accepted; with the largest page size that is beyond any merchant's 1000 reports. */
export const MAX_PAGE = 1_000_000;

/** The spec's page object of reports. */
export type ReportPage = Page<Report>;

export interface ListQuery {
  size: number;
  page: number;
  reportName?: string | undefined;
}

/**
 * Lists the merchant's reports, oldest first (by id), a page at a time; page numbers start at 0.
 * `reportName` keeps the reports whose name contains it, ignoring case (both sides are normalised and
 * lower-cased the same way, see `searchKey`); empty or absent keeps all.
 * @example const page = await listReports(db, merchantId, { size: 20, page: 0, reportName: 'daily' });
 */
export async function listReports(db: Db, merchantId: string, query: ListQuery): Promise<ReportPage> {
  const needle = query.reportName ? searchKey(query.reportName) : '';
  let base = db.selectFrom('reports').where('merchant_id', '=', merchantId);
  if (needle !== '') base = base.where((eb) => eb(eb.fn('strpos', ['name_search', eb.val(needle)]), '>', 0));
  const offset = query.page * query.size;
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<bigint>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('id').limit(query.size).offset(offset).execute(),
  ]);
  return springPage(rows.map(rowToReport), Number(count), query);
}
