import { sql, type RawBuilder } from 'kysely';
import { CURRENCY_EXPONENTS } from '../lib/currencies';
import { inPositionOrder, splitIntoExpressions, type Indexed } from './column-expressions';
import { dynamicRange, literalRange, type TimeRange } from './dynamic-values';
import { catalogueField, sourceQuery, type CatalogueField, type FieldType } from './field-catalogue';
import type { DateWrap, DynamicValue, FilterOperator, ReportDefinition, StoredColumn, StoredFilter } from './report-definition';
import type { ExportFormat, ReportRow } from './row-formats';

/**
 * Turns a validated report definition into one SQL query over the merchant's rows:
 *
 *     select <row text s0, s1, …> from (<source rows t>) as t
 *     where <filters> group by <keys> order by <orderings> limit … offset …
 *
 * Only SQL written in this module and in field-catalogue.ts becomes query text: fields are chosen by
 * catalogue id, operators map to fixed SQL tokens, and every value a client gave (filter values,
 * dates, JSON keys, the merchant id) is a query parameter. An alias never becomes SQL text.
 *
 * Every output value is rendered to text by the database (dates as `yyyy-MM-dd HH:mm:ss` UTC, amounts
 * as decimal strings with their currency's decimals). Money stays integer minor units until that last
 * cast: sums are taken over bigint columns.
 *
 * The database also writes the export text itself: each row comes back as one string, its cells with
 * their separators, quoting and escaping (and, in JSON, their keys, passed as parameters). One string
 * per row instead of one per cell is what lets an export stream hundreds of thousands of rows a second
 * (docs/performance.md, "Reports export"): the service only copies the lines to the client.
 */

/** How an output column is written: text (quoted in JSON) or a number (a JSON number literal). */
export type OutputKind = 'text' | 'number';

export interface CompiledReport {
  /** The output columns' aliases, in order (the CSV header). */
  readonly aliases: readonly string[];
  /** The report's rows, with the report's own offset and limit, for reading as one statement. */
  readonly query: RawBuilder<ReportRow>;
  /**
   * Rows `skip` to `skip + take` of the report's rows (its own offset and limit applied first), for
   * reading in batches. Returns null once the report's limit is exhausted.
   */
  window(skip: number, take: number): RawBuilder<ReportRow> | null;
}

const ref = (fieldId: number) => sql.ref(`t.f${fieldId}`);

/** Fixed SQL for each token a definition may name; a value outside these tables never reaches a query. */
const ARITHMETIC_SQL = { '+': sql.raw('+'), '-': sql.raw('-') } as const;
const TRUNCATE_UNIT: Readonly<Record<DateWrap, string>> = { DAY: 'day', MONTH: 'month', YEAR: 'year' };
const WRAPPED_FORMAT: Readonly<Record<DateWrap, string>> = { DAY: 'YYYY-MM-DD', MONTH: 'YYYY-MM', YEAR: 'YYYY' };
const COMPARISON_SQL = { '=': sql.raw('='), '<': sql.raw('<'), '<=': sql.raw('<='), '>': sql.raw('>'), '>=': sql.raw('>=') } as const;

/** The largest currency exponent: money filters and orderings compare amounts scaled to it. */
const MAX_EXPONENT = Math.max(...Object.values(CURRENCY_EXPONENTS));
const EXPONENT_GROUPS = groupCurrenciesByExponent();

function groupCurrenciesByExponent(): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const [currency, exponent] of Object.entries(CURRENCY_EXPONENTS)) groups.set(exponent, [...(groups.get(exponent) ?? []), currency]);
  return groups;
}

/** `case <currency> when … end` choosing an expression per exponent (2, the ISO default, for an unknown code). */
function perExponent(currency: RawBuilder<unknown>, build: (exponent: number) => RawBuilder<unknown>): RawBuilder<unknown> {
  const branches = [...EXPONENT_GROUPS.entries()]
    .filter(([exponent]) => exponent !== 2)
    .map(([exponent, codes]) => sql`when ${currency} in (${sql.join(codes.map((code) => sql.lit(code)))}) then ${build(exponent)}`);
  return branches.length === 0 ? build(2) : sql`(case ${sql.join(branches, sql` `)} else ${build(2)} end)`;
}

/** Minor units as a decimal string with the currency's decimals: 1999 BRL → '19.99', 1999 CLP → '1999'. */
function renderMoney(minor: RawBuilder<unknown>, currency: RawBuilder<unknown>): RawBuilder<unknown> {
  return perExponent(currency, (exponent) =>
    exponent === 0 ? sql`(${minor})::text` : sql`round((${minor})::numeric / ${sql.lit(10 ** exponent)}, ${sql.lit(exponent)})::text`,
  );
}

/** Minor units scaled to MAX_EXPONENT decimals, so amounts of different currencies compare by value. */
function scaledMoney(minor: RawBuilder<unknown>, currency: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(${minor}) * ${perExponent(currency, (exponent) => sql.lit(10 ** (MAX_EXPONENT - exponent)))}`;
}

interface Expression {
  readonly head: StoredColumn;
  readonly members: readonly Indexed<StoredColumn>[];
  readonly field: CatalogueField;
  readonly type: FieldType;
  /** The value before aggregation: a column, a truncated date, or an arithmetic expression. */
  readonly base: RawBuilder<unknown>;
  /** The value of the output column: base, or its aggregate. */
  readonly value: RawBuilder<unknown>;
  /** The value as the export shows it (text). */
  readonly rendered: RawBuilder<unknown>;
  /** What ORDER BY sorts on. */
  readonly sortKey: RawBuilder<unknown>;
  readonly kind: OutputKind;
  /** True when no value can need CSV quoting or JSON escaping: amounts, dates, numbers, enums, ids. */
  readonly plain: boolean;
}

function buildExpression(members: readonly Indexed<StoredColumn>[]): Expression {
  const head = members[0]?.column;
  if (!head) throw new Error('an expression has at least one column');
  const field = requireField(head.field.id);
  const currency = field.currencyField === undefined ? undefined : ref(field.currencyField);
  let base: RawBuilder<unknown>;
  if (members.length > 1) {
    const parts = members.map(({ column }, i) => {
      const operand = sql`${sql.raw(column.open_parentheses ? '(' : '')}${ref(column.field.id)}${sql.raw(column.close_parentheses ? ')' : '')}`;
      const operator = i < members.length - 1 && column.arithmetic_operator ? sql` ${ARITHMETIC_SQL[column.arithmetic_operator]} ` : sql``;
      return sql`${operand}${operator}`;
    });
    base = sql`(${sql.join(parts, sql``)})`;
  } else if (head.wrap) {
    base = sql`date_trunc(${sql.lit(TRUNCATE_UNIT[head.wrap])}, ${ref(field.id)} at time zone 'UTC')`;
  } else {
    base = ref(field.id);
  }

  const aggregation = head.aggregation_operator;
  let value = base;
  let kind: OutputKind = field.type === 'number' ? 'number' : 'text';
  let type: FieldType = field.type;
  switch (aggregation) {
    case 'COUNT':
      value = sql`count(${base})`;
      kind = 'number';
      type = 'number';
      break;
    case 'SUM':
      value = sql`sum(${base})`;
      break;
    case 'AVG':
      // An average of amounts is rounded to the minor unit; of plain numbers, to two decimals.
      value = field.type === 'money' ? sql`round(avg(${base}))` : sql`round(avg(${base}), 2)`;
      break;
    case 'MIN':
      value = sql`min(${base})`;
      break;
    case 'MAX':
      value = sql`max(${base})`;
      break;
    case null:
      break;
  }

  let rendered: RawBuilder<unknown>;
  let sortKey = value;
  if (type === 'money' && currency) {
    rendered = renderMoney(value, currency);
    sortKey = scaledMoney(value, currency);
  } else if (type === 'date') {
    // A timestamp cut to the second prints as yyyy-MM-dd HH:mm:ss in the ISO date style, which the
    // export sets for its transaction; it costs a third less than to_char, which matters per row.
    rendered = head.wrap ? sql`to_char(${value}, ${sql.lit(WRAPPED_FORMAT[head.wrap])})` : sql`date_trunc('second', ${value} at time zone 'UTC')::text`;
  } else if (kind === 'number') {
    rendered = sql`(${value})::text`;
  } else {
    rendered = value;
  }
  const plain = kind === 'number' || type === 'enum' || type === 'date' || type === 'money' || field.plain === true || field.masked === true;
  return { head, members, field, type, base, value, rendered, sortKey, kind, plain };
}

function requireField(id: number): CatalogueField {
  const field = catalogueField(id);
  if (!field) throw new Error(`field ${id} is not in the catalogue; validate the report first`);
  return field;
}

/** The condition of one filter over the source row `t`. */
function filterCondition(filter: StoredFilter, now: Date): RawBuilder<unknown> {
  const field = requireField(filter.field.id);
  const column = ref(field.id);
  const operator = filter.filter_operator;
  if (operator === 'IS_NULL') return sql`${column} is null`;
  if (operator === 'IS_NOT_NULL') return sql`${column} is not null`;
  switch (field.type) {
    case 'date': {
      const range = filter.dynamic_filter ? dynamicRange(filter.value as DynamicValue, now) : literalRange(filter.value);
      if (!range) throw new Error(`filter value ${filter.value} is not a date; validate the report first`);
      return dateCondition(column, operator, range);
    }
    case 'money': {
      // The value has at most MAX_EXPONENT decimals (validated); compare in units of that many decimals.
      const [whole = '0', fraction = ''] = filter.value.replace('-', '').split('.');
      const scaled = `${filter.value.startsWith('-') ? '-' : ''}${whole}${fraction.padEnd(MAX_EXPONENT, '0')}`;
      const currency = ref(field.currencyField ?? 0);
      return compare(scaledMoney(column, currency), operator, sql`${scaled}::numeric`);
    }
    case 'number':
      return compare(column, operator, sql`${filter.value}::numeric`);
    case 'string':
    case 'enum':
      if (operator === 'CONTAINS') return sql`strpos(lower(${column}), lower(${filter.value})) > 0`;
      if (operator === 'STARTS_WITH') return sql`starts_with(lower(${column}), lower(${filter.value}))`;
      if (operator === 'IN') return sql`${column} in (${sql.join(filter.value.split(',').map((v) => v.trim()))})`;
      return compare(column, operator, sql`${filter.value}`);
  }
}

/** `!=` keeps rows where the field is empty: "not PAID" includes a payout without a card scheme. */
function compare(left: RawBuilder<unknown>, operator: FilterOperator, right: RawBuilder<unknown>): RawBuilder<unknown> {
  if (operator === '!=') return sql`${left} is distinct from ${right}`;
  if (operator in COMPARISON_SQL) return sql`${left} ${COMPARISON_SQL[operator as keyof typeof COMPARISON_SQL]} ${right}`;
  throw new Error(`operator ${operator} does not compare; validate the report first`);
}

/** A date against a range [start, end): `=` is "within", `<` "before it starts", `>` "after it ends". */
function dateCondition(column: RawBuilder<unknown>, operator: FilterOperator, range: TimeRange): RawBuilder<unknown> {
  const start = sql`${range.start.toISOString()}::timestamptz`;
  const end = sql`${range.end.toISOString()}::timestamptz`;
  switch (operator) {
    case '=':
      return sql`(${column} >= ${start} and ${column} < ${end})`;
    case '!=':
      return sql`(${column} < ${start} or ${column} >= ${end} or ${column} is null)`;
    case '<':
      return sql`${column} < ${start}`;
    case '<=':
      return sql`${column} < ${end}`;
    case '>':
      return sql`${column} >= ${end}`;
    case '>=':
      return sql`${column} >= ${start}`;
    default:
      throw new Error(`operator ${operator} does not apply to dates; validate the report first`);
  }
}

/**
 * Filters joined in position order, each by its logical operator to the next one (the last one's is
 * unused). AND binds tighter than OR, as in SQL: `a AND b OR c` is `(a AND b) OR c`.
 */
function whereClause(filters: readonly StoredFilter[], now: Date): RawBuilder<unknown> | null {
  const ordered = [...filters].sort((a, b) => a.position - b.position);
  if (ordered.length === 0) return null;
  const parts = ordered.map((filter, i) => {
    const condition = sql`(${filterCondition(filter, now)})`;
    if (i === ordered.length - 1) return condition;
    return sql`${condition} ${filter.logical_operator === 'OR' ? sql.raw('or') : sql.raw('and')} `;
  });
  return sql.join(parts, sql``);
}

/**
 * The export text of a row: its cells with their separators. In CSV a null is an empty field and free
 * text is always quoted (RFC 4180 allows quoting any field), with a leading apostrophe when it starts
 * like a spreadsheet formula (OWASP, "CSV injection"); in JSON each cell follows its key (a query
 * parameter) and free text is escaped by the database's own `to_json`.
 */
function rowText(expressions: readonly Expression[], format: ExportFormat): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  expressions.forEach((e, i) => {
    const value = e.rendered;
    if (format === 'csv') {
      if (i > 0) parts.push(sql.lit(','));
      parts.push(
        e.plain
          ? sql`coalesce(${value}, '')`
          : // ascii() is the code of the first character: = + - @ tab CR start a formula.
            sql`coalesce('"' || replace(case when ascii(${value}) in (61, 43, 45, 64, 9, 13) then '''' || ${value} else ${value} end, '"', '""') || '"', '')`,
      );
    } else {
      // The key is a parameter: an alias is the client's text and never becomes SQL text.
      parts.push(sql`${jsonKey(e.head.alias, i)}::text`);
      parts.push(
        e.kind === 'number'
          ? sql`coalesce(${value}, 'null')`
          : e.plain
            ? sql`coalesce('"' || ${value} || '"', 'null')`
            : sql`coalesce(to_json(${value})::text, 'null')`,
      );
    }
  });
  return sql.join(parts, sql` || `);
}

/**
 * The JSON text before the value of output column `index`: `"alias":`, after a comma but for the first.
 * @example jsonKey('Amount', 1) // ',"Amount":'
 */
export function jsonKey(alias: string, index: number): string {
  return `${index === 0 ? '' : ','}${JSON.stringify(alias)}:`;
}

/**
 * @example
 * const compiled = compileReport(report, merchantId, await merchantNow(db, merchantId), 'csv');
 * const { rows } = await compiled.query.execute(db); // [{ line: 'PAID,100.00' }, …]
 */
export function compileReport(definition: ReportDefinition, merchantId: string, now: Date, format: ExportFormat): CompiledReport {
  const expressions = splitIntoExpressions(inPositionOrder(definition.fields)).map(buildExpression);

  // The source reads each field the report touches, and the currency of each amount among them.
  const fieldIds = new Set<number>([...definition.fields.map((c) => c.field.id), ...definition.filters.map((f) => f.field.id)]);
  for (const id of [...fieldIds]) {
    const currency = catalogueField(id)?.currencyField;
    if (currency !== undefined) fieldIds.add(currency);
  }
  const source = sourceQuery(definition.report_type, [...fieldIds].sort((a, b) => a - b), merchantId);

  const groupAliases = new Set(definition.group_by.filter((alias) => alias !== ''));
  const keys = expressions.filter((e) => groupAliases.has(e.head.alias));
  const grouped = keys.length > 0 || expressions.some((e) => e.head.aggregation_operator !== null);

  const select = sql`${rowText(expressions, format)} as line`;
  const where = whereClause(definition.filters, now);
  const groupBy = keys.length > 0 ? sql`group by ${sql.join(keys.map((e) => e.base))}` : sql``;

  // Orderings name a column by position; a column inside a computed column orders by that column.
  const byPosition = new Map<number, Expression>();
  for (const e of expressions) for (const member of e.members) byPosition.set(member.column.position, e);
  const orderings = [...definition.order_by]
    .sort((a, b) => a.position - b.position)
    .flatMap((o) => {
      const e = byPosition.get(o.field_position);
      return e ? [sql`${e.sortKey} ${o.direction === 'DESC' ? sql.raw('desc') : sql.raw('asc')}`] : [];
    });
  // Reading in windows needs a total order, so no row is skipped or repeated between windows: the
  // row key, or the group keys, break ties. One statement over one snapshot needs none, and sorting by
  // them costs a second per million rows, so that query leaves ties in the database's order.
  const tieBreakers = grouped ? keys.map((e) => e.base) : [sql`t.k`];

  const body = (offset: number | null, limit: number | null, totalOrder: boolean) => {
    const orderBy = totalOrder ? [...orderings, ...tieBreakers] : orderings;
    return sql<ReportRow>`select ${select} from (${source}) as t
    ${where ? sql`where ${where}` : sql``}
    ${groupBy}
    ${orderBy.length > 0 ? sql`order by ${sql.join(orderBy)}` : sql``}
    ${limit === null ? sql`` : sql`limit ${limit}`}
    ${offset ? sql`offset ${offset}` : sql``}`;
  };

  const reportOffset = definition.offset ?? 0;
  return {
    aliases: expressions.map((e) => e.head.alias),
    query: body(reportOffset, definition.limit, false),
    window(skip, take) {
      const remaining = definition.limit === null ? take : Math.min(take, definition.limit - skip);
      return remaining > 0 ? body(reportOffset + skip, remaining, true) : null;
    },
  };
}
