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

/**
 * A saved report's filter (`filters[]`) as the tests write them: joined by AND, not dynamic, unless `extra` says otherwise.
 * @example filters: [reportFilter(0, 12, '=', 'MX'), reportFilter(1, 4, 'IN', 'OXXO,PAYNET')]
 */
export function reportFilter(position: number, fieldId: number, operator: string, value: string, extra: Record<string, unknown> = {}) {
  return { field: { id: fieldId }, position, filter_operator: operator, value, logical_operator: 'AND', dynamic_filter: false, ...extra };
}
