import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { type Report } from './report-definition';
import { rowToReport } from './report-row';

const MAX_ID = 2_147_483_647;

/**
 * A report id from a path. Anything that cannot be a report id (not a positive integer, beyond the
 * integer range) is simply not found: the path names no report, whatever it holds.
 * @example parseReportId('42') // 42
 */
export function parseReportId(text: string): number {
  const id = /^[1-9]\d{0,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(id <= MAX_ID)) throw notFound(text);
  return id;
}

export function notFound(id: number | string): ApiError {
  return new ApiError('NOT_FOUND', `reportId: no report ${String(id).slice(0, 32)} of this merchant.`);
}

/**
 * `GET …/myreports/report/<id>`: one of the merchant's reports; another merchant's is not found.
 * @example const report = await readReport(db, merchantId, '42');
 */
export async function readReport(db: Db, merchantId: string, reportId: string): Promise<Report> {
  const id = parseReportId(reportId);
  const row = await db.selectFrom('reports').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
  if (!row) throw notFound(id);
  return rowToReport(row);
}
