import { PageSchema } from '../http/page';
import { Type, type TSchemaOptions } from 'typebox';
import { StringEnum, withError } from '../http/schema-kit';
import { MAX_PAGE, PAGE_SIZE } from './list-reports';
import {
  AGGREGATION_OPERATORS,
  ARITHMETIC_OPERATORS,
  DATE_WRAPS,
  DIRECTIONS,
  FILTER_OPERATORS,
  LOGICAL_OPERATORS,
  REPORT_LIMITS,
  REPORT_TYPE_NAMES,
} from './report-definition';
import { EXPORT_FORMATS } from './row-formats';

/**
 * Schemas of the report endpoints: the Report resource field for field as the spec shows it (column,
 * filter and ordering items), the spec's page object, and the query strings. The shape is checked
 * here (types, required fields, enumerations, bounds); the catalogue rules in validate-report.ts.
 */

/** A string enum that may also be null (one `enum` list, so a failure names every allowed value). */
function NullableEnum<const T extends readonly string[]>(values: T, options: TSchemaOptions = {}) {
  return Type.Unsafe<T[number] | null>({ ...options, type: ['string', 'null'], enum: [...values, null] });
}

function NullableInteger(minimum: number, maximum: number, options: TSchemaOptions = {}) {
  return Type.Unsafe<number | null>({ ...options, type: ['integer', 'null'], minimum, maximum });
}

const FieldRef = Type.Object({ id: Type.Integer({ description: 'a field id of the catalogue (docs/reports.md)' }) });
const ItemId = NullableInteger(1, REPORT_LIMITS.maxItemId, { description: 'kept when given; assigned (the next free id of the list) when absent or null' });
const Position = Type.Integer({ minimum: 0, maximum: REPORT_LIMITS.maxPosition });
const Text = (maxLength: number, options: TSchemaOptions = {}) =>
  withError(Type.String({ ...options, minLength: 1, maxLength, pattern: '\\S' }), 'FIELD_TOO_SHORT', 'must not be empty or blank.');

const ColumnBody = Type.Object({
  field: FieldRef,
  id: Type.Optional(ItemId),
  position: Position,
  alias: Text(REPORT_LIMITS.aliasLength, { description: 'the column name in exports; unique within the report' }),
  aggregation_operator: Type.Optional(NullableEnum(AGGREGATION_OPERATORS)),
  arithmetic_operator: Type.Optional(NullableEnum(ARITHMETIC_OPERATORS, { description: 'combines this column with the next one' })),
  wrap: Type.Optional(NullableEnum(DATE_WRAPS, { description: 'truncates a date column (UTC)' })),
  open_parentheses: Type.Optional(Type.Boolean({ default: false })),
  close_parentheses: Type.Optional(Type.Boolean({ default: false })),
});

const FilterBody = Type.Object({
  field: FieldRef,
  id: Type.Optional(ItemId),
  position: Position,
  filter_operator: StringEnum(FILTER_OPERATORS),
  value: Type.String({ maxLength: REPORT_LIMITS.valueLength, description: 'a literal of the field type, or a dynamic value name' }),
  logical_operator: StringEnum(LOGICAL_OPERATORS, { description: 'joins this filter to the next one' }),
  dynamic_filter: Type.Boolean(),
});

const OrderingBody = Type.Object({
  id: Type.Optional(ItemId),
  position: Position,
  field_position: Type.Integer({ description: 'the position of the column to order by' }),
  direction: StringEnum(DIRECTIONS),
});

export const ReportBody = Type.Object(
  {
    id: Type.Optional(Type.Integer({ description: 'PUT: must be the id of the path when given; POST: ignored' })),
    name: Text(REPORT_LIMITS.nameLength),
    folder: Type.String({ maxLength: REPORT_LIMITS.folderLength }),
    report_type: StringEnum(REPORT_TYPE_NAMES),
    report_type_name: Type.Optional(Type.String({ maxLength: 200, description: 'ignored: derived from report_type' })),
    enable: Type.Boolean(),
    offset: Type.Optional(NullableInteger(0, REPORT_LIMITS.maxOffset, { description: 'rows to skip' })),
    limit: Type.Optional(NullableInteger(1, REPORT_LIMITS.maxLimit, { description: 'most rows to export' })),
    fields: Type.Array(ColumnBody, { minItems: 1, maxItems: REPORT_LIMITS.columns }),
    filters: Type.Array(FilterBody, { maxItems: REPORT_LIMITS.filters }),
    group_by: Type.Array(Type.String({ maxLength: REPORT_LIMITS.aliasLength }), { maxItems: REPORT_LIMITS.groupBy, description: 'aliases of grouped columns; [""] for none' }),
    order_by: Type.Array(OrderingBody, { maxItems: REPORT_LIMITS.orderings }),
  },
  { title: 'ReportInput' },
);

const ColumnResponse = Type.Object({
  field: Type.Object({ id: Type.Integer() }),
  id: Type.Integer(),
  position: Type.Integer(),
  alias: Type.String(),
  aggregation_operator: NullableEnum(AGGREGATION_OPERATORS),
  arithmetic_operator: NullableEnum(ARITHMETIC_OPERATORS),
  wrap: NullableEnum(DATE_WRAPS),
  open_parentheses: Type.Boolean(),
  close_parentheses: Type.Boolean(),
});

const FilterResponse = Type.Object({
  field: Type.Object({ id: Type.Integer() }),
  id: Type.Integer(),
  position: Type.Integer(),
  filter_operator: Type.String(),
  value: Type.String(),
  logical_operator: Type.String(),
  dynamic_filter: Type.Boolean(),
});

const OrderingResponse = Type.Object({ id: Type.Integer(), position: Type.Integer(), field_position: Type.Integer(), direction: Type.String() });

export const ReportResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    folder: Type.String(),
    report_type: Type.String(),
    report_type_name: Type.String(),
    enable: Type.Boolean(),
    offset: NullableInteger(0, REPORT_LIMITS.maxOffset),
    limit: NullableInteger(1, REPORT_LIMITS.maxLimit),
    fields: Type.Array(ColumnResponse),
    filters: Type.Array(FilterResponse, { description: 'ordered by position ascending' }),
    group_by: Type.Array(Type.String()),
    order_by: Type.Array(OrderingResponse),
  },
  { title: 'Report' },
);

export const ReportPageResponse = PageSchema(ReportResponse, 'ReportPage');

export const ListReportsQuery = Type.Object({
  size: Type.Integer({ minimum: 1, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default, description: `reports per page, at most ${PAGE_SIZE.max}` }),
  page: Type.Integer({ minimum: 0, maximum: MAX_PAGE, default: 0, description: 'page number, from 0' }),
  reportName: Type.Optional(Type.String({ maxLength: REPORT_LIMITS.nameLength, description: 'keeps reports whose name contains it, ignoring case' })),
});

export const ReportIdParams = Type.Object({ reportId: Type.String({ maxLength: 64 }) });

export const ExportQuery = Type.Object({
  format: StringEnum(EXPORT_FORMATS, { default: 'csv' }),
  count: Type.Optional(Type.Boolean({ description: 'true: count the rows first and answer their number in the X-Total-Count header (one more query over the same rows)' })),
});
