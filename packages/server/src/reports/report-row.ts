import type { Selectable } from 'kysely';
import { byPosition, REPORT_TYPES, type Report, type ReportType } from './report-definition';
import type { ReportsTable } from './tables';

/** The Report resource of a stored row, lists ordered by position (filters always are, per the spec). */
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
    fields: byPosition([...row.fields]),
    filters: byPosition([...row.filters]),
    group_by: [...row.group_by],
    order_by: byPosition([...row.order_by]),
  };
}
