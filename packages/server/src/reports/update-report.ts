import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { checkedDefinition } from './create-report';
import { notFound, parseReportId } from './read-report';
import { definitionToRow, type Report, type ReportInput } from './report-definition';
import { rowToReport } from './report-row';

/**
 * `PUT …/myreports/report/<id>` with a complete Report: replaces the definition and answers the report
 * as stored, its filters (and columns and orderings) in ascending position. Checked in this order:
 * the path names a report id, the body's `id` (if any) is that id, the catalogue rules, then the report
 * exists and is the merchant's (404 otherwise, for another merchant's report too).
 * @example const report = await updateReport(db, merchantId, '42', body);
 */
export async function updateReport(db: Db, merchantId: string, reportId: string, input: ReportInput): Promise<Report> {
  const id = parseReportId(reportId);
  if (input.id !== undefined && input.id !== id) {
    throw ApiError.fields([{ key: 'REPORT_ID_MISMATCH', description: `id: ${input.id} differs from the report id ${id} of the path.` }]);
  }
  const definition = checkedDefinition(input);
  const row = await db
    .updateTable('reports')
    .set({ ...definitionToRow(definition), updated_at: new Date() })
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound(id);
  return rowToReport(row);
}
