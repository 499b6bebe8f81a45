import { describe, expect, it } from 'vitest';
import { ERRORS } from '../http/errors';
import { DEFAULT_REPORTS } from './default-reports';
import { normalizeDefinition, type ColumnInput, type FilterInput, type ReportInput } from './report-definition';
import { validateReport } from './validate-report';

const column = (position: number, fieldId: number, alias: string, extra: Partial<ColumnInput> = {}): ColumnInput => ({
  field: { id: fieldId },
  position,
  alias,
  ...extra,
});
const filter = (position: number, fieldId: number, operator: FilterInput['filter_operator'], value: string, extra: Partial<FilterInput> = {}): FilterInput => ({
  field: { id: fieldId },
  position,
  filter_operator: operator,
  value,
  logical_operator: 'AND',
  dynamic_filter: false,
  ...extra,
});

/** A valid PAYIN report touching every kind of rule, changed by each case below. */
function base(): ReportInput {
  return {
    name: 'Base',
    folder: '',
    report_type: 'PAYIN',
    enable: true,
    fields: [column(0, 1, 'Status'), column(1, 33, 'Amount'), column(2, 34, 'Currency'), column(3, 7, 'Created')],
    filters: [filter(0, 1, 'IN', 'PAID,REFUNDED'), filter(1, 7, '>=', 'LAST_7_DAYS', { dynamic_filter: true })],
    group_by: [''],
    order_by: [{ position: 0, field_position: 3, direction: 'DESC' }],
  };
}

function failuresOf(change: (report: ReportInput) => void) {
  const report = base();
  change(report);
  return validateReport(report).map((f) => ({ code: codeOf(f.key), path: f.description.slice(0, f.description.indexOf(':')) }));
}

function codeOf(key: keyof typeof ERRORS): string {
  return ERRORS[key].code;
}

describe('validateReport', () => {
  it('accepts the base report and every default report', () => {
    expect(validateReport(base())).toEqual([]);
    for (const report of DEFAULT_REPORTS) expect(validateReport(report), report.name).toEqual([]);
    expect(DEFAULT_REPORTS.some((r) => r.report_type === 'MERCHANT')).toBe(true);
    expect(DEFAULT_REPORTS.some((r) => r.report_type === 'PAYIN')).toBe(true);
  });

  const cases: { name: string; change: (r: ReportInput) => void; code: string; path: string }[] = [
    { name: 'unknown column field', change: (r) => (r.fields[0]!.field.id = 999), code: '05.01.0001', path: 'fields[0].field.id' },
    { name: 'payout field in a PAYIN report', change: (r) => r.fields.push(column(9, 60, 'Bank')), code: '05.01.0002', path: 'fields[4].field.id' },
    { name: 'operator of another type', change: (r) => (r.filters[0] = filter(0, 1, '>', 'PAID')), code: '05.01.0003', path: 'filters[0].filter_operator' },
    { name: 'CONTAINS on an amount', change: (r) => r.filters.push(filter(5, 33, 'CONTAINS', '1')), code: '05.01.0003', path: 'filters[2].filter_operator' },
    { name: 'enum value outside the list', change: (r) => (r.filters[0]!.value = 'PAID,LOST'), code: '05.01.0004', path: 'filters[0].value' },
    { name: 'amount with three decimals', change: (r) => r.filters.push(filter(5, 33, '>=', '10.123')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'amount that is not a number', change: (r) => r.filters.push(filter(5, 33, '>=', 'ten')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'impossible date', change: (r) => r.filters.push(filter(5, 7, '<', '2026-02-30')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'dynamic name without dynamic_filter', change: (r) => r.filters.push(filter(5, 7, '<', 'NOW')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'number that is not a number', change: (r) => r.filters.push(filter(5, 32, '=', '2x')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'empty CONTAINS', change: (r) => r.filters.push(filter(5, 3, 'CONTAINS', '')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'IS_NULL with a value', change: (r) => r.filters.push(filter(5, 8, 'IS_NULL', 'x')), code: '05.01.0004', path: 'filters[2].value' },
    { name: 'unknown dynamic value', change: (r) => (r.filters[1]!.value = 'YESTERDAY'), code: '05.01.0005', path: 'filters[1].value' },
    { name: 'dynamic value on a non-date field', change: (r) => r.filters.push(filter(5, 3, '=', 'NOW', { dynamic_filter: true })), code: '05.01.0005', path: 'filters[2].dynamic_filter' },
    { name: 'dynamic IS_NULL', change: (r) => r.filters.push(filter(5, 8, 'IS_NULL', '', { dynamic_filter: true })), code: '05.01.0005', path: 'filters[2].dynamic_filter' },
    { name: 'close without open', change: (r) => (r.fields[1]!.close_parentheses = true), code: '05.01.0006', path: 'fields[1].close_parentheses' },
    {
      name: 'open never closed',
      change: (r) => {
        r.fields = [column(0, 1, 'Status'), column(1, 33, 'Amount', { open_parentheses: true, arithmetic_operator: '+' }), column(2, 51, 'Fees'), column(3, 7, 'Created')];
      },
      code: '05.01.0006',
      path: 'fields[1].open_parentheses',
    },
    { name: 'ordering by no column', change: (r) => (r.order_by[0]!.field_position = 42), code: '05.01.0007', path: 'order_by[0].field_position' },
    { name: 'two columns at one position', change: (r) => (r.fields[2]!.position = 0), code: '05.01.0008', path: 'fields[2].position' },
    { name: 'two filters at one position', change: (r) => (r.filters[1]!.position = 0), code: '05.01.0008', path: 'filters[1].position' },
    { name: 'two orderings at one position', change: (r) => r.order_by.push({ position: 0, field_position: 0, direction: 'ASC' }), code: '05.01.0008', path: 'order_by[1].position' },
    { name: 'two columns with one id', change: (r) => ((r.fields[0]!.id = 7), (r.fields[3]!.id = 7)), code: '05.01.0009', path: 'fields[3].id' },
    { name: 'two columns with one alias', change: (r) => (r.fields[3]!.alias = 'Status'), code: '05.01.0010', path: 'fields[3].alias' },
    { name: 'grouping by no alias', change: (r) => (r.group_by = ['Nope']), code: '05.01.0011', path: 'group_by[0]' },
    {
      name: 'a column neither grouped nor aggregated',
      change: (r) => ((r.group_by = ['Status', 'Currency']), (r.fields[1]!.aggregation_operator = 'SUM')),
      code: '05.01.0012',
      path: 'fields[3].aggregation_operator',
    },
    {
      name: 'a grouped column aggregated',
      change: (r) => ((r.group_by = ['Status', 'Currency', 'Created']), (r.fields[1]!.aggregation_operator = 'SUM'), (r.fields[0]!.aggregation_operator = 'COUNT')),
      code: '05.01.0013',
      path: 'fields[0].aggregation_operator',
    },
    { name: 'SUM of a status', change: (r) => ((r.fields[0]!.aggregation_operator = 'SUM'), (r.group_by = ['Amount', 'Currency', 'Created'])), code: '05.01.0014', path: 'fields[0].aggregation_operator' },
    {
      name: 'a total of amounts without their currency',
      change: (r) => ((r.fields = [column(0, 1, 'Status'), column(1, 33, 'Amount', { aggregation_operator: 'SUM' })]), (r.group_by = ['Status']), (r.order_by = [])),
      code: '05.01.0015',
      path: 'fields[1].field.id',
    },
    { name: 'amount plus a status', change: (r) => (r.fields[0]!.arithmetic_operator = '+'), code: '05.01.0016', path: 'fields[1].field.id' },
    { name: 'operator on the last column', change: (r) => (r.fields[3]!.arithmetic_operator = '-'), code: '05.01.0016', path: 'fields[3].arithmetic_operator' },
    {
      name: 'amounts of two currencies',
      change: (r) => {
        r.fields = [column(0, 1, 'Status'), column(1, 33, 'Amount', { arithmetic_operator: '-' }), column(2, 35, 'Original'), column(3, 7, 'Created')];
      },
      code: '05.01.0016',
      path: 'fields[2].field.id',
    },
    { name: 'wrap on an amount', change: (r) => (r.fields[1]!.wrap = 'DAY'), code: '05.01.0017', path: 'fields[1].wrap' },
    { name: 'filtering on a masked field', change: (r) => r.filters.push(filter(5, 23, '=', 'x')), code: '05.01.0019', path: 'filters[2].field.id' },
    { name: 'ordering by a masked field', change: (r) => (r.fields.push(column(7, 23, 'Tax id')), (r.order_by[0]!.field_position = 7)), code: '05.01.0019', path: 'order_by[0].field_position' },
  ];

  it.each(cases)('refuses $name with $code at $path', ({ change, code, path }) => {
    expect(failuresOf(change)).toEqual([{ code, path }]);
  });

  it('reports every failing item, in a fixed order: columns, expressions, grouping, filters, orderings', () => {
    const failures = failuresOf((r) => {
      r.order_by[0]!.field_position = 99;
      r.filters[0]!.field.id = 998;
      r.fields[0]!.field.id = 999;
      r.fields[3]!.close_parentheses = true;
    });
    expect(failures.map((f) => f.path)).toEqual(['fields[0].field.id', 'fields[3].close_parentheses', 'filters[0].field.id', 'order_by[0].field_position']);
  });

  it('accepts computed columns with balanced parentheses, grouped by day with totals', () => {
    const report: ReportInput = {
      ...base(),
      fields: [
        column(0, 7, 'Day', { wrap: 'DAY' }),
        column(1, 34, 'Currency'),
        column(2, 33, 'Net', { aggregation_operator: 'SUM', arithmetic_operator: '-', open_parentheses: false }),
        column(3, 50, 'Merchant fees', { arithmetic_operator: '-', open_parentheses: true }),
        column(4, 51, 'Customer fees', { close_parentheses: true }),
        column(5, 2, 'Payments', { aggregation_operator: 'COUNT' }),
      ],
      group_by: ['Day', 'Currency'],
      order_by: [{ position: 0, field_position: 3, direction: 'ASC' }],
    };
    expect(validateReport(report)).toEqual([]);
  });
});

describe('normalizeDefinition', () => {
  it('orders every list by position and gives new items the next free id of their list', () => {
    const input = base();
    input.filters = [filter(5, 3, '=', 'b', { id: 4 }), filter(1, 3, '=', 'a'), filter(3, 3, '=', 'c', { id: null })];
    const normalized = normalizeDefinition(input);
    expect(normalized.filters.map((f) => [f.position, f.id, f.value])).toEqual([
      [1, 5, 'a'],
      [3, 6, 'c'],
      [5, 4, 'b'],
    ]);
    expect(normalized.fields[0]).toEqual({
      field: { id: 1 },
      id: 1,
      position: 0,
      alias: 'Status',
      aggregation_operator: null,
      arithmetic_operator: null,
      wrap: null,
      open_parentheses: false,
      close_parentheses: false,
    });
    expect(normalized).toMatchObject({ offset: null, limit: null });
  });
});
