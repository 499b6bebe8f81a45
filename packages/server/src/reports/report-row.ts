import type { Selectable } from 'kysely';
import { byPosition, REPORT_TYPES, type Report, type ReportType, type StoredColumn, type StoredFilter, type StoredOrdering } from './report-definition';
import type { ReportsTable } from '../db/tables/reports';

/**
 * The Report resource of a stored row, lists ordered by position (filters always are, per the spec).
 * The jsonb lists are typed plainly in db/tables/reports.ts; they hold what definitionToRow wrote.
 */
export function rowToReport(row: Selectable<ReportsTable>): Report {
  const type = row.report_type as ReportType;
  return {
    id: row.id,
    name: row.name,
    folder: row.folder,
    report_type: type,
    report_type_name: REPORT_TYPES[type] ?? type,
    enable: row.enable,
    offset: row.row_offset,
    limit: row.row_limit,
    fields: byPosition([...(row.fields as StoredColumn[])]),
    filters: byPosition([...(row.filters as StoredFilter[])]),
    group_by: [...row.group_by],
    order_by: byPosition([...(row.order_by as StoredOrdering[])]),
  };
}
