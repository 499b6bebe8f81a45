import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { definitionToRow, normalizeDefinition, REPORT_LIMITS, type Report, type ReportDefinition, type ReportInput } from './report-definition';
import { rowToReport } from './report-row';
import { validateReport } from './validate-report';

/**
 * A definition that passes the catalogue rules, normalised for storage; otherwise a 400 listing every
 * failing item (validate-report.ts).
 * @example const definition = checkedDefinition(request.body);
 */
export function checkedDefinition(input: ReportInput): ReportDefinition {
  const failures = validateReport(input);
  if (failures.length > 0) throw ApiError.fields(failures);
  return normalizeDefinition(input);
}

/**
 * Stores a new report of the merchant (`POST …/myreports/report`). A given `id` is ignored: ids are
 * assigned. The merchant's row is locked while counting, so parallel creates cannot pass the
 * per-merchant limit together.
 * @example const report = await createReport(db, merchantId, body); // report.id is new
 */
export async function createReport(db: Db, merchantId: string, input: ReportInput): Promise<Report> {
  const definition = checkedDefinition(input);
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('merchants').select('id').where('id', '=', merchantId).forUpdate().executeTakeFirstOrThrow();
    const { count } = await trx
      .selectFrom('reports')
      .select((eb) => eb.fn.countAll<bigint>().as('count'))
      .where('merchant_id', '=', merchantId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= REPORT_LIMITS.reportsPerMerchant) throw new ApiError('REPORT_LIMIT_REACHED');
    return insertReport(trx, merchantId, definition);
  });
}

/**
 * Inserts a checked definition, in the caller's transaction if it is one (the default reports of a
 * new merchant are inserted in the transaction that creates the merchant).
 * @example await insertReport(trx, merchantId, checkedDefinition(input));
 */
export async function insertReport(db: Db, merchantId: string, definition: ReportDefinition): Promise<Report> {
  const row = await db
    .insertInto('reports')
    .values({ merchant_id: merchantId, ...definitionToRow(definition) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return rowToReport(row);
}
