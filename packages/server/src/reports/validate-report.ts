import type { ErrorKey } from '../http/errors';
import { inPositionOrder, splitIntoExpressions, type Indexed } from './column-expressions';
import { literalRange } from './dynamic-values';
import { AGGREGATIONS_BY_TYPE, catalogueField, OPERATORS_BY_TYPE, type CatalogueField, type FieldType } from './field-catalogue';
import { DYNAMIC_VALUES, type ColumnInput, type FilterInput, type ReportInput } from './report-definition';

/**
 * The rules of a report definition beyond its JSON shape (the request schema checks the shape first).
 * Every failing item is reported with its path, in a fixed order so the same request always gets the
 * same answer: columns (catalogue, wrap, aggregation, duplicates), expressions (arithmetic and
 * parentheses), grouping, filters, orderings. docs/reports.md lists the rules with examples.
 */

export interface ReportFailure {
  readonly key: ErrorKey;
  readonly description: string;
}

const MONEY_VALUE = /^-?\d{1,13}(?:\.\d{1,2})?$/;
const NUMBER_VALUE = /^-?\d{1,15}(?:\.\d{1,6})?$/;

/**
 * @example validateReport(definition) // [] when the definition can be stored
 * @example validateReport({ ...definition, filters: [{ field: { id: 999 }, ... }] })[0].description // 'filters[0].field.id: …'
 */
export function validateReport(input: ReportInput): ReportFailure[] {
  const failures: ReportFailure[] = [];
  const fail = (key: ErrorKey, path: string, message: string) => failures.push({ key, description: `${path}: ${message}` });

  const fieldOf = (item: { field: { id: number } }, path: string): CatalogueField | undefined => {
    const field = catalogueField(item.field.id);
    if (!field) {
      fail('REPORT_FIELD_UNKNOWN', `${path}.field.id`, `${item.field.id} is not a field of the catalogue (docs/reports.md).`);
      return undefined;
    }
    if (!field.reportTypes.includes(input.report_type)) {
      fail('REPORT_FIELD_NOT_IN_TYPE', `${path}.field.id`, `field ${field.id} (${field.name}) is not available in ${input.report_type} reports; it may be used in ${field.reportTypes.join(', ')} reports.`);
      return undefined;
    }
    return field;
  };

  // Columns, one by one.
  const columnFields = new Map<number, CatalogueField>();
  const aliases = new Map<string, number>();
  const columnIds = duplicateTracker('fields', 'id', 'REPORT_DUPLICATE_ID', fail);
  const columnPositions = duplicateTracker('fields', 'position', 'REPORT_DUPLICATE_POSITION', fail);
  input.fields.forEach((column, i) => {
    const at = `fields[${i}]`;
    const field = fieldOf(column, at);
    if (field) {
      columnFields.set(i, field);
      if (column.wrap && field.type !== 'date') {
        fail('REPORT_WRAP', `${at}.wrap`, `${column.wrap} applies to date fields only; field ${field.id} (${field.name}) is ${field.type}.`);
      }
      const aggregation = column.aggregation_operator;
      if (aggregation && !AGGREGATIONS_BY_TYPE[field.type].includes(aggregation)) {
        fail('REPORT_AGGREGATION_NOT_ALLOWED', `${at}.aggregation_operator`, `${aggregation} does not apply to ${field.type} field ${field.id} (${field.name}); use ${AGGREGATIONS_BY_TYPE[field.type].join(', ')}.`);
      }
    }
    const earlier = aliases.get(column.alias);
    if (earlier === undefined) aliases.set(column.alias, i);
    else fail('REPORT_DUPLICATE_ALIAS', `${at}.alias`, `"${column.alias}" is also the alias of fields[${earlier}]; aliases name the columns of an export and must be unique.`);
    columnIds(column.id, i);
    columnPositions(column.position, i);
  });

  // Expressions: arithmetic runs of columns and their parentheses.
  const expressions = splitIntoExpressions(inPositionOrder(input.fields));
  const expressionTypes = new Map<Indexed<ColumnInput>[], FieldType | undefined>();
  for (const expression of expressions) {
    expressionTypes.set(expression, checkExpression(expression, columnFields, fail));
  }

  // Grouping: every output column is either a group key or aggregated once anything groups.
  const heads = new Map<string, { expression: Indexed<ColumnInput>[]; type: FieldType | undefined }>();
  for (const expression of expressions) {
    const head = expression[0];
    if (head && !heads.has(head.column.alias)) heads.set(head.column.alias, { expression, type: expressionTypes.get(expression) });
  }
  const groupKeys = new Set<string>();
  input.group_by.forEach((alias, g) => {
    if (alias === '') return; // The spec shows `[""]` for a report without grouping.
    const head = heads.get(alias);
    const masked = head ? columnFields.get(head.expression[0]?.index ?? -1) : undefined;
    if (masked?.masked) fail('REPORT_MASKED_FIELD', `group_by[${g}]`, `"${alias}" shows field ${masked.id} (${masked.name}), which is masked: it cannot be grouped by.`);
    else if (head) groupKeys.add(alias);
    else fail('REPORT_GROUP_BY_UNKNOWN', `group_by[${g}]`, `"${alias}" is not the alias of a column (of the first column, for a computed column).`);
  });
  const grouped = groupKeys.size > 0 || expressions.some((e) => e[0]?.column.aggregation_operator);
  if (grouped) checkGrouping(expressions, expressionTypes, groupKeys, columnFields, fail);

  // Filters.
  const filterIds = duplicateTracker('filters', 'id', 'REPORT_DUPLICATE_ID', fail);
  const filterPositions = duplicateTracker('filters', 'position', 'REPORT_DUPLICATE_POSITION', fail);
  input.filters.forEach((filter, i) => {
    const at = `filters[${i}]`;
    const field = fieldOf(filter, at);
    if (field?.masked) fail('REPORT_MASKED_FIELD', `${at}.field.id`, `field ${field.id} (${field.name}) is masked: it cannot be filtered.`);
    else if (field) checkFilter(filter, field, at, fail);
    filterIds(filter.id, i);
    filterPositions(filter.position, i);
  });

  // Orderings point at columns by position.
  const positions = new Map(input.fields.map((column, i) => [column.position, columnFields.get(i)]));
  const orderingIds = duplicateTracker('order_by', 'id', 'REPORT_DUPLICATE_ID', fail);
  const orderingPositions = duplicateTracker('order_by', 'position', 'REPORT_DUPLICATE_POSITION', fail);
  input.order_by.forEach((ordering, i) => {
    const field = positions.get(ordering.field_position);
    if (!positions.has(ordering.field_position)) {
      fail('REPORT_FIELD_POSITION', `order_by[${i}].field_position`, `no column has position ${ordering.field_position}.`);
    } else if (field?.masked) {
      fail('REPORT_MASKED_FIELD', `order_by[${i}].field_position`, `the column at position ${ordering.field_position} shows field ${field.id} (${field.name}), which is masked: it cannot be ordered by.`);
    }
    orderingIds(ordering.id, i);
    orderingPositions(ordering.position, i);
  });

  return failures;
}

type Fail = (key: ErrorKey, path: string, message: string) => void;

/** Reports the second and later items of a list that repeat a value (ids, positions). */
function duplicateTracker(list: string, property: 'id' | 'position', key: ErrorKey, fail: Fail) {
  const seen = new Map<number, number>();
  return (value: number | null | undefined, index: number) => {
    if (value === null || value === undefined) return;
    const earlier = seen.get(value);
    if (earlier === undefined) seen.set(value, index);
    else fail(key, `${list}[${index}].${property}`, `${value} is also the ${property} of ${list}[${earlier}].`);
  };
}

/**
 * Checks one expression and returns its type (undefined when a member is unknown or types clash).
 * Operands must all be numbers, or all amounts of the same currency field; only the first column may
 * carry an aggregation, which applies to the whole expression; parentheses balance inside it.
 */
function checkExpression(expression: Indexed<ColumnInput>[], fields: Map<number, CatalogueField>, fail: Fail): FieldType | undefined {
  const last = expression[expression.length - 1];
  if (last?.column.arithmetic_operator) {
    fail('REPORT_ARITHMETIC', `fields[${last.index}].arithmetic_operator`, 'the last column has no next column to combine with.');
  }
  const open: number[] = [];
  for (const { column, index } of expression) {
    if (column.open_parentheses) open.push(index);
    if (column.close_parentheses && open.pop() === undefined) {
      fail('REPORT_PARENTHESES', `fields[${index}].close_parentheses`, 'closes a parenthesis that is not open in this expression.');
    }
  }
  for (const index of open) fail('REPORT_PARENTHESES', `fields[${index}].open_parentheses`, 'opens a parenthesis that is not closed by the end of its expression.');

  const head = expression[0];
  const headField = head ? fields.get(head.index) : undefined;
  if (expression.length === 1 || !head) return headField?.type;
  let type: FieldType | undefined = headField?.type;
  for (const member of expression) {
    const field = fields.get(member.index);
    if (!field || !headField) {
      type = undefined;
      continue;
    }
    if (member === head) continue;
    if (member.column.aggregation_operator) {
      fail('REPORT_ARITHMETIC', `fields[${member.index}].aggregation_operator`, `must be null: in a computed column only the first column (fields[${head.index}]) aggregates, and its operator applies to the whole expression.`);
    }
    const compatible =
      (field.type === 'number' && headField.type === 'number') ||
      (field.type === 'money' && headField.type === 'money' && field.currencyField === headField.currencyField);
    if (!compatible) {
      type = undefined;
      const what = field.type === 'money' || field.type === 'number' ? `${field.type}${field.currencyField ? ` in the currency of field ${field.currencyField}` : ''}` : field.type;
      fail('REPORT_ARITHMETIC', `fields[${member.index}].field.id`, `field ${field.id} (${field.name}, ${what}) cannot be combined with field ${headField.id} (${headField.name}): arithmetic takes numbers with numbers, or amounts of the same currency field.`);
    }
  }
  return type;
}

function checkGrouping(
  expressions: Indexed<ColumnInput>[][],
  types: Map<Indexed<ColumnInput>[], FieldType | undefined>,
  groupKeys: Set<string>,
  fields: Map<number, CatalogueField>,
  fail: Fail,
): void {
  // The currency fields that are group keys as plain columns (not wrapped, not computed).
  const groupedFieldIds = new Set<number>();
  for (const expression of expressions) {
    const head = expression[0];
    if (head && expression.length === 1 && groupKeys.has(head.column.alias) && !head.column.wrap) groupedFieldIds.add(head.column.field.id);
  }
  for (const expression of expressions) {
    const head = expression[0];
    if (!head) continue;
    const at = `fields[${head.index}]`;
    const aggregation = head.column.aggregation_operator;
    const isKey = groupKeys.has(head.column.alias);
    if (isKey && aggregation) fail('REPORT_GROUPED_AGGREGATE', `${at}.aggregation_operator`, `must be null: the column "${head.column.alias}" is listed in group_by.`);
    if (!isKey && !aggregation) {
      fail('REPORT_NOT_GROUPED', `${at}.aggregation_operator`, `must be set, or "${head.column.alias}" listed in group_by: the report groups rows, so each column is grouped or aggregated.`);
    }
    const field = fields.get(head.index);
    if (types.get(expression) === 'money' && aggregation !== 'COUNT' && field?.currencyField !== undefined && !groupedFieldIds.has(field.currencyField)) {
      const currency = catalogueField(field.currencyField);
      fail('REPORT_MONEY_CURRENCY', `${at}.field.id`, `field ${field.id} (${field.name}) is an amount in the currency of field ${field.currencyField} (${currency?.name ?? '?'}); add a column of that field to group_by, so no total adds up two currencies.`);
    }
  }
}

function checkFilter(filter: FilterInput, field: CatalogueField, at: string, fail: Fail): void {
  const operator = filter.filter_operator;
  const allowed = OPERATORS_BY_TYPE[field.type];
  if (!allowed.includes(operator)) {
    fail('REPORT_OPERATOR_NOT_ALLOWED', `${at}.filter_operator`, `${operator} does not apply to ${field.type} field ${field.id} (${field.name}); use ${allowed.join(', ')}.`);
    return;
  }
  if (operator === 'IS_NULL' || operator === 'IS_NOT_NULL') {
    if (filter.dynamic_filter) fail('REPORT_DYNAMIC_VALUE', `${at}.dynamic_filter`, `must be false: ${operator} takes no value.`);
    if (filter.value !== '') fail('REPORT_FILTER_VALUE', `${at}.value`, `must be empty: ${operator} takes no value.`);
    return;
  }
  if (filter.dynamic_filter) {
    if (field.type !== 'date') {
      fail('REPORT_DYNAMIC_VALUE', `${at}.dynamic_filter`, `dynamic values apply to date fields only; field ${field.id} (${field.name}) is ${field.type}.`);
    } else if (!(DYNAMIC_VALUES as readonly string[]).includes(filter.value)) {
      fail('REPORT_DYNAMIC_VALUE', `${at}.value`, `must be one of ${DYNAMIC_VALUES.join(', ')} when dynamic_filter is true.`);
    }
    return;
  }
  const problem = literalProblem(field, operator, filter.value);
  if (problem) fail('REPORT_FILTER_VALUE', `${at}.value`, problem);
}

/** Why a literal filter value does not fit its field, or null when it does. */
function literalProblem(field: CatalogueField, operator: string, value: string): string | null {
  switch (field.type) {
    case 'string':
      return (operator === 'CONTAINS' || operator === 'STARTS_WITH') && value === '' ? `must not be empty for ${operator}.` : null;
    case 'enum': {
      const values = field.values ?? [];
      const given = operator === 'IN' ? value.split(',').map((v) => v.trim()) : [value];
      const wrong = given.filter((v) => !values.includes(v));
      if (wrong.length === 0) return null;
      const list = operator === 'IN' ? 'a comma-separated list of' : 'one of';
      return `must be ${list} ${values.join(', ')} (field ${field.id}, ${field.name}).`;
    }
    case 'number':
      return NUMBER_VALUE.test(value) ? null : 'must be a number such as 3 or 2.5.';
    case 'money':
      return MONEY_VALUE.test(value) ? null : 'must be a decimal amount with at most 2 decimals, such as 100 or 100.50.';
    case 'date':
      if (literalRange(value)) return null;
      if ((DYNAMIC_VALUES as readonly string[]).includes(value)) return `${value} is a dynamic value: set dynamic_filter to true to use it.`;
      return 'must be a UTC date yyyy-MM-dd or date and time yyyy-MM-dd HH:mm:ss.';
  }
}
