import type { Db } from '../db/database';
import { checkedDefinition, insertReport } from './create-report';
import type { ColumnInput, FilterInput, ReportInput } from './report-definition';

/**
 * The saved reports every new merchant starts with (contract, Reports: at least one MERCHANT and one
 * PAYIN report). They are ordinary reports: the merchant may change or delete them.
 */

const column = (position: number, fieldId: number, alias: string, extra: Partial<ColumnInput> = {}): ColumnInput => ({
  field: { id: fieldId },
  id: position + 1,
  position,
  alias,
  aggregation_operator: null,
  arithmetic_operator: null,
  wrap: null,
  open_parentheses: false,
  close_parentheses: false,
  ...extra,
});

const dynamic = (position: number, fieldId: number, value: string): FilterInput => ({
  field: { id: fieldId },
  id: position + 1,
  position,
  filter_operator: '=',
  value,
  logical_operator: 'AND',
  dynamic_filter: true,
});

export const DEFAULT_REPORTS: readonly ReportInput[] = [
  {
    name: 'Transactions this month',
    folder: 'Default',
    report_type: 'MERCHANT',
    enable: true,
    offset: null,
    limit: null,
    fields: [
      column(0, 5, 'Type'),
      column(1, 2, 'Transaction id'),
      column(2, 3, 'Reference'),
      column(3, 1, 'Status'),
      column(4, 4, 'Method'),
      column(5, 7, 'Created'),
      column(6, 8, 'Paid'),
      column(7, 33, 'Amount'),
      column(8, 34, 'Currency'),
      column(9, 50, 'Merchant fees'),
      column(10, 54, 'Net amount'),
    ],
    filters: [dynamic(0, 7, 'CURRENT_MONTH')],
    group_by: [''],
    order_by: [{ id: 1, position: 0, field_position: 5, direction: 'DESC' }],
  },
  {
    name: 'Pay-ins of the last 7 days',
    folder: 'Default',
    report_type: 'PAYIN',
    enable: true,
    offset: null,
    limit: null,
    fields: [
      column(0, 2, 'Payment token'),
      column(1, 3, 'Reference'),
      column(2, 1, 'Status'),
      column(3, 4, 'Method'),
      column(4, 30, 'Card scheme'),
      column(5, 31, 'Card number'),
      column(6, 32, 'Installments'),
      column(7, 20, 'Customer'),
      column(8, 21, 'E-mail'),
      column(9, 23, 'Tax id'),
      column(10, 7, 'Created'),
      column(11, 8, 'Paid'),
      column(12, 33, 'Amount'),
      column(13, 34, 'Currency'),
      column(14, 51, 'Customer fees'),
      column(15, 50, 'Merchant fees'),
    ],
    filters: [dynamic(0, 7, 'LAST_7_DAYS')],
    group_by: [''],
    order_by: [{ id: 1, position: 0, field_position: 10, direction: 'DESC' }],
  },
  {
    name: 'Daily paid volume this month',
    folder: 'Default',
    report_type: 'PAYIN',
    enable: true,
    offset: null,
    limit: null,
    fields: [
      column(0, 8, 'Day', { wrap: 'DAY' }),
      column(1, 34, 'Currency'),
      column(2, 2, 'Payments', { aggregation_operator: 'COUNT' }),
      column(3, 33, 'Volume', { aggregation_operator: 'SUM' }),
      column(4, 50, 'Merchant fees', { aggregation_operator: 'SUM' }),
      column(5, 54, 'Net amount', { aggregation_operator: 'SUM' }),
    ],
    filters: [dynamic(0, 8, 'CURRENT_MONTH')],
    group_by: ['Day', 'Currency'],
    order_by: [{ id: 1, position: 0, field_position: 0, direction: 'ASC' }],
  },
];

/**
 * The merchant setup step (merchants/setup-steps.ts): stores the default reports in the transaction
 * that creates the merchant.
 * @example await createDefaultReports(trx, merchantId);
 */
export async function createDefaultReports(trx: Db, merchantId: string): Promise<void> {
  for (const input of DEFAULT_REPORTS) await insertReport(trx, merchantId, checkedDefinition(input));
}
