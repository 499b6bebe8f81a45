
/**
 * The saved report as the spec shows it (Report, Report column, Report filter, Report ordering), and
 * the conversions between that resource and its row. docs/reports.md explains every field.
 */

/** Report types and their display names (`report_type_name`, derived from the type and never stored). */
export const REPORT_TYPES = {
  MERCHANT: 'Merchant transactions',
  PAYIN: 'Pay-ins',
} as const;
export type ReportType = keyof typeof REPORT_TYPES;
export const REPORT_TYPE_NAMES = Object.keys(REPORT_TYPES) as ReportType[];

export const AGGREGATION_OPERATORS = ['SUM', 'COUNT', 'AVG', 'MIN', 'MAX'] as const;
export type AggregationOperator = (typeof AGGREGATION_OPERATORS)[number];

/** Operators that combine a column with the next one into one computed column (docs/reports.md, "Computed columns"). */
export const ARITHMETIC_OPERATORS = ['+', '-'] as const;
export type ArithmeticOperator = (typeof ARITHMETIC_OPERATORS)[number];

/** `wrap` truncates a date column to its day, month or year (UTC), mostly to group by it. */
export const DATE_WRAPS = ['DAY', 'MONTH', 'YEAR'] as const;
export type DateWrap = (typeof DATE_WRAPS)[number];

export const FILTER_OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'CONTAINS', 'STARTS_WITH', 'IN', 'IS_NULL', 'IS_NOT_NULL'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const LOGICAL_OPERATORS = ['AND', 'OR'] as const;
export type LogicalOperator = (typeof LOGICAL_OPERATORS)[number];

/** The dynamic values of date filters, evaluated on the merchant clock when the report runs (dynamic-values.ts). */
export const DYNAMIC_VALUES = ['NOW', 'CURRENT_DAY', 'CURRENT_MONTH', 'LAST_7_DAYS'] as const;
export type DynamicValue = (typeof DYNAMIC_VALUES)[number];

export const DIRECTIONS = ['ASC', 'DESC'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Bounds of a report definition; the request schema enforces them (schemas.ts). */
export const REPORT_LIMITS = {
  nameLength: 200,
  folderLength: 200,
  aliasLength: 100,
  valueLength: 1000,
  columns: 100,
  filters: 100,
  orderings: 20,
  groupBy: 100,
  maxPosition: 1_000_000,
  maxItemId: 2_147_483_647,
  maxOffset: 1_000_000_000,
  maxLimit: 1_000_000_000,
  /** Saved reports per merchant. */
  reportsPerMerchant: 1000,
} as const;

export interface StoredColumn {
  field: { id: number };
  id: number;
  position: number;
  alias: string;
  aggregation_operator: AggregationOperator | null;
  arithmetic_operator: ArithmeticOperator | null;
  wrap: DateWrap | null;
  open_parentheses: boolean;
  close_parentheses: boolean;
}

export interface StoredFilter {
  field: { id: number };
  id: number;
  position: number;
  filter_operator: FilterOperator;
  value: string;
  logical_operator: LogicalOperator;
  dynamic_filter: boolean;
}

export interface StoredOrdering {
  id: number;
  position: number;
  field_position: number;
  direction: Direction;
}

/** A report's definition: everything but its id and the derived type name. */
export interface ReportDefinition {
  name: string;
  folder: string;
  report_type: ReportType;
  enable: boolean;
  offset: number | null;
  limit: number | null;
  fields: StoredColumn[];
  filters: StoredFilter[];
  group_by: string[];
  order_by: StoredOrdering[];
}

/** The Report resource, field for field as the spec lists it. */
export interface Report extends ReportDefinition {
  id: number;
  report_type_name: string;
}

/** A definition as a request gives it: item ids may be absent or null (new items), optional flags absent. */
export interface ReportInput {
  id?: number | undefined;
  name: string;
  folder: string;
  report_type: ReportType;
  report_type_name?: string | undefined;
  enable: boolean;
  offset?: number | null | undefined;
  limit?: number | null | undefined;
  fields: ColumnInput[];
  filters: FilterInput[];
  group_by: string[];
  order_by: OrderingInput[];
}

export interface ColumnInput {
  field: { id: number };
  id?: number | null | undefined;
  position: number;
  alias: string;
  aggregation_operator?: AggregationOperator | null | undefined;
  arithmetic_operator?: ArithmeticOperator | null | undefined;
  wrap?: DateWrap | null | undefined;
  open_parentheses?: boolean | undefined;
  close_parentheses?: boolean | undefined;
}

export interface FilterInput {
  field: { id: number };
  id?: number | null | undefined;
  position: number;
  filter_operator: FilterOperator;
  value: string;
  logical_operator: LogicalOperator;
  dynamic_filter: boolean;
}

export interface OrderingInput {
  id?: number | null | undefined;
  position: number;
  field_position: number;
  direction: Direction;
}

/**
 * Gives every item without an id the next free id of its list (ids are per report and per list, kept
 * across updates so a client can match its items), fills the optional flags, and orders each list
 * by position. The input must have passed validate-report.ts, which refuses duplicate ids and positions.
 * @example normalizeDefinition({ name: 'x', ..., filters: [{ position: 2, ... }, { position: 1, ... }] }).filters[0].position // 1
 */
export function normalizeDefinition(input: ReportInput): ReportDefinition {
  return {
    name: input.name,
    folder: input.folder,
    report_type: input.report_type,
    enable: input.enable,
    offset: input.offset ?? null,
    limit: input.limit ?? null,
    fields: byPosition(
      withIds(input.fields).map(({ item, id }) => ({
        field: { id: item.field.id },
        id,
        position: item.position,
        alias: item.alias,
        aggregation_operator: item.aggregation_operator ?? null,
        arithmetic_operator: item.arithmetic_operator ?? null,
        wrap: item.wrap ?? null,
        open_parentheses: item.open_parentheses ?? false,
        close_parentheses: item.close_parentheses ?? false,
      })),
    ),
    filters: byPosition(
      withIds(input.filters).map(({ item, id }) => ({
        field: { id: item.field.id },
        id,
        position: item.position,
        filter_operator: item.filter_operator,
        value: item.value,
        logical_operator: item.logical_operator,
        dynamic_filter: item.dynamic_filter,
      })),
    ),
    group_by: [...input.group_by],
    order_by: byPosition(
      withIds(input.order_by).map(({ item, id }) => ({
        id,
        position: item.position,
        field_position: item.field_position,
        direction: item.direction,
      })),
    ),
  };
}

function withIds<T extends { id?: number | null | undefined }>(items: readonly T[]): { item: T; id: number }[] {
  let next = items.reduce((max, item) => Math.max(max, item.id ?? 0), 0) + 1;
  return items.map((item) => ({ item, id: item.id ?? next++ }));
}

export function byPosition<T extends { position: number }>(items: T[]): T[] {
  return items.sort((a, b) => a.position - b.position);
}

/** The row values of a definition (JSON documents as text; see db/tables/reports.ts). */
export function definitionToRow(definition: ReportDefinition) {
  return {
    name: definition.name,
    name_search: searchKey(definition.name),
    folder: definition.folder,
    report_type: definition.report_type,
    enable: definition.enable,
    row_offset: definition.offset,
    row_limit: definition.limit,
    fields: JSON.stringify(definition.fields),
    filters: JSON.stringify(definition.filters),
    group_by: JSON.stringify(definition.group_by),
    order_by: JSON.stringify(definition.order_by),
  };
}

/**
 * How names are compared by the `reportName` search: Unicode-normalised and lower-cased in JavaScript,
 * so the match is the same on both engines whatever the database's collation.
 * @example searchKey('Vendas DIÁRIAS') // 'vendas diárias'
 */
export function searchKey(text: string): string {
  return text.normalize('NFC').toLowerCase();
}
