import type { Db } from '../db/database';
import { springPage, type Page } from '../http/page';
import { disputeView, type DisputeFileRow, type DisputeView } from './dispute-record';
import type { DisputeStatus } from './states';

export interface DisputeListQuery {
  page: number;
  size: number;
  status?: DisputeStatus | undefined;
  /** YYYY-MM-DD, inclusive, on the day the dispute was opened (UTC, merchant clock). */
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * `GET /disputes`: the merchant's disputes, newest first, one page with the total count, each with its
 * evidence files (one more statement for the page's files).
 * @example const page = await listDisputes(db, merchantId, { page: 0, size: 20, status: 'NEEDS_RESPONSE' });
 */
export async function listDisputes(db: Db, merchantId: string, query: DisputeListQuery): Promise<Page<DisputeView>> {
  let base = db.selectFrom('disputes').where('merchant_id', '=', merchantId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.from) base = base.where('created_at', '>=', new Date(`${query.from}T00:00:00Z`));
  if (query.to) base = base.where('created_at', '<', new Date(new Date(`${query.to}T00:00:00Z`).getTime() + 86_400_000));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('dispute_id').limit(query.size).offset(query.page * query.size).execute(),
    base.select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const ids = rows.map((r) => r.dispute_id);
  const files = ids.length === 0 ? [] : await db.selectFrom('dispute_files').selectAll().where('merchant_id', '=', merchantId).where('dispute_id', 'in', ids).orderBy('created_at').orderBy('file_id').execute();
  const filesOf = new Map<string, DisputeFileRow[]>();
  for (const file of files) filesOf.set(file.dispute_id, [...(filesOf.get(file.dispute_id) ?? []), file]);
  return springPage(rows.map((row) => disputeView(row, filesOf.get(row.dispute_id) ?? [])), Number(count.n), query);
}
