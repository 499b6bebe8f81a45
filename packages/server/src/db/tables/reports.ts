import type { ColumnType, Generated } from 'kysely';

/**
 * Table types of the saved reports (migration 0007-reports); merged into db/schema.ts's Database.
 *
 * A report's columns, filters and orderings are always read and written together with the report, so
 * they are kept as jsonb documents on its row rather than as child tables. The JSON columns are written
 * as JSON text (a JavaScript array given to node-postgres would otherwise become a PostgreSQL array).
 * Their items are the StoredColumn, StoredFilter and StoredOrdering of reports/report-definition.ts,
 * which reports/report-row.ts reads them as.
 */
export interface ReportsTable {
  id: Generated<number>;
  merchant_id: string;
  name: string;
  /** The name folded for the `reportName` search (NFC, lower case); see reports/list-reports.ts. */
  name_search: string;
  folder: string;
  report_type: string;
  enable: boolean;
  row_offset: number | null;
  row_limit: number | null;
  fields: ColumnType<unknown[], string, string>;
  filters: ColumnType<unknown[], string, string>;
  group_by: ColumnType<string[], string, string>;
  order_by: ColumnType<unknown[], string, string>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface ReportTables {
  reports: ReportsTable;
}
