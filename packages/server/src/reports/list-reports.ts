import type { Db } from '../db/database';
import { searchKey, type Report } from './report-definition';
import { rowToReport } from './report-row';

/** Page sizes of `GET …/myreports/report` (docs/reports.md): the default and the most one page holds. */
export const PAGE_SIZE = { default: 20, max: 100 } as const;
/** The highest page number accepted; with the largest page size that is beyond any merchant's 1000 reports. */
export const MAX_PAGE = 1_000_000;

export interface PageSort {
  empty: boolean;
  sorted: boolean;
  unsorted: boolean;
}

/** The spec's page object (the shape of a Spring Data page). */
export interface ReportPage {
  content: Report[];
  pageable: { sort: PageSort; offset: number; pageSize: number; pageNumber: number; paged: boolean; unpaged: boolean };
  last: boolean;
  totalPages: number;
  totalElements: number;
  first: boolean;
  size: number;
  number: number;
  sort: PageSort;
  numberOfElements: number;
  empty: boolean;
}

export interface ListQuery {
  size: number;
  page: number;
  reportName?: string | undefined;
}

/**
 * Lists the merchant's reports, oldest first (by id), a page at a time; page numbers start at 0.
 * `reportName` keeps the reports whose name contains it, ignoring case (both sides are normalised and
 * lower-cased the same way, see `searchKey`); empty or absent keeps all. The request takes no sort, so
 * `sort` reports an unsorted request, as a Spring page does.
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
  const totalElements = Number(count);
  const totalPages = Math.ceil(totalElements / query.size);
  const sort: PageSort = { empty: true, sorted: false, unsorted: true };
  return {
    content: rows.map(rowToReport),
    pageable: { sort: { ...sort }, offset, pageSize: query.size, pageNumber: query.page, paged: true, unpaged: false },
    last: query.page + 1 >= totalPages,
    totalPages,
    totalElements,
    first: query.page === 0,
    size: query.size,
    number: query.page,
    sort,
    numberOfElements: rows.length,
    empty: rows.length === 0,
  };
}
