/** A saved report's column (`fields[]`, fields in docs/reports.md): the field by id, its place and its alias, with nothing applied to it. */
export interface ReportColumn {
  field: { id: number };
  position: number;
  alias: string;
  aggregation_operator: string | null;
  arithmetic_operator: string | null;
  wrap: string | null;
  open_parentheses: boolean;
  close_parentheses: boolean;
  [key: string]: unknown;
}

/**
 * A report column as the tests create reports: no aggregation, arithmetic, wrap or parentheses, unless `extra` sets them.
 * @example fields: [reportColumn(0, 2, 'Transaction id'), reportColumn(1, 1, 'Status')]
 */
export function reportColumn(position: number, fieldId: number, alias: string, extra: Record<string, unknown> = {}): ReportColumn {
  return { field: { id: fieldId }, position, alias, aggregation_operator: null, arithmetic_operator: null, wrap: null, open_parentheses: false, close_parentheses: false, ...extra };
}
