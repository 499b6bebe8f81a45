import type { Db } from '../db/database';
import { notFound, parseReportId } from './read-report';

/**
 * `DELETE …/myreports/report/<id>`: removes one of the merchant's reports; another merchant's is not found.
 * @example await deleteReport(db, merchantId, '42');
 */
export async function deleteReport(db: Db, merchantId: string, reportId: string): Promise<void> {
  const id = parseReportId(reportId);
  const deleted = await db.deleteFrom('reports').where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw notFound(id);
}
