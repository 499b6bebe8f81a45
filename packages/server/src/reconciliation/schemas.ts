import { Type } from 'typebox';
import { PageSchema } from '../http/page';
import { StatusEnum, StringEnum } from '../http/schema-kit';
import { LINE_STATES } from './states';
import { LINE_REASONS, RECONCILED_PROCESSOR_NAMES } from './matching-rules';

/** Route schemas of reconciliation (docs/reconciliation.md). */

const Timestamp = (description: string) => Type.Union([Type.String({ description }), Type.Null()]);

export const RunSchema = Type.Object(
  {
    run_id: Type.String({ format: 'uuid' }),
    processor: StatusEnum(RECONCILED_PROCESSOR_NAMES),
    lines: Type.Integer({ description: "the report's lines (its header left out)" }),
    matched: Type.Integer(),
    mismatched: Type.Integer({ description: 'lines whose amount or fees differ from what Colibri expected' }),
    missing_in_colibri: Type.Integer({ description: 'lines that settle something Colibri has not settled' }),
    missing_at_processor: Type.Integer({ description: "Colibri's operations of the period the report does not list, past their expected date" }),
    informational: Type.Integer({ description: "lines that settle no operation of Colibri's (fees of the month, the batch's payout)" }),
    period_from: Timestamp("yyyy-MM-dd HH:mm:ss (UTC): the start of the report's first day"),
    period_to: Timestamp("yyyy-MM-dd HH:mm:ss (UTC): the end of the report's last day"),
    imported_by: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ description: 'yyyy-MM-dd HH:mm:ss (UTC)' }),
  },
  { title: 'ReconciliationRun' },
);

const Money = (description: string) => Type.Union([Type.Number({ description }), Type.Null()]);

export const LineSchema = Type.Object(
  {
    line_id: Type.String({ format: 'uuid' }),
    merchant_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the merchant whose records the line names; null when it names none' }),
    line_number: Type.Union([Type.Integer(), Type.Null()], { description: 'the line of the file (1 is the header); null for an operation missing at the processor' }),
    reason: StatusEnum(LINE_REASONS),
    status: StatusEnum(Object.keys(LINE_STATES.moves)),
    record_type: Type.Union([Type.String(), Type.Null()], { description: "the report's Type: Settled, Refunded, Chargeback, …" }),
    psp_reference: Type.Union([Type.String(), Type.Null()]),
    merchant_reference: Type.Union([Type.String(), Type.Null()]),
    modification_reference: Type.Union([Type.String(), Type.Null()]),
    modification_merchant_reference: Type.Union([Type.String(), Type.Null()]),
    resource_type: Type.Union([StatusEnum(['payment', 'refund', 'dispute']), Type.Null()]),
    resource_id: Type.Union([Type.String(), Type.Null()], { description: "Colibri's record: a payment token, refund id or dispute id" }),
    asset: Type.Union([Type.String(), Type.Null()]),
    reported_amount: Money('what the line moves: positive to Colibri, negative from it'),
    expected_amount: Money("what Colibri's record moved, in the same direction"),
    reported_fee: Money("the processor's fees on the line"),
    expected_fee: Money("the fees the processor's price gives, where Colibri knows it"),
    reported_net: Money('the net of the line'),
    detail: Type.String(),
    occurred_at: Timestamp("yyyy-MM-dd HH:mm:ss (UTC): the line's Creation Date, or the operation's time"),
    expected_on: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()], { description: 'when the processor should have settled it (MISSING_AT_PROCESSOR)' }),
    resolved_at: Timestamp('yyyy-MM-dd HH:mm:ss (UTC)'),
    resolved_by: Type.Union([Type.String(), Type.Null()]),
    resolution_note: Type.Union([Type.String(), Type.Null()]),
    adjustment_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  },
  { title: 'ReconciliationLine' },
);

export const RunWithLinesSchema = Type.Object(
  {
    ...RunSchema.properties,
    unmatched: PageSchema(LineSchema, 'ReconciliationLinePage'),
  },
  { title: 'ReconciliationRunDetails' },
);

export const ImportQuery = Type.Object({
  processor: StringEnum(RECONCILED_PROCESSOR_NAMES, { description: 'adyen: an Adyen Settlement details report; sandbox: the simulator\'s report in that format; pix: the PSP\'s list of received PIX (no body)' }),
  from: Type.Optional(Type.String({ format: 'date', description: 'pix only: YYYY-MM-DD, the first day' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'pix only: YYYY-MM-DD, the last day' })),
});

export const ResolveBody = Type.Object({
  adjustment: Type.Optional(
    Type.Object({
      merchant_id: Type.String({ format: 'uuid' }),
      amount: Type.Number({ description: "decimal: positive adds to what Colibri owes the merchant, negative takes from it" }),
      currency: Type.String({ minLength: 3, maxLength: 3 }),
      reason: Type.String({ minLength: 1, maxLength: 500 }),
    }),
  ),
  note: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'why the line needs no adjustment' })),
});

export const LinesQuery = Type.Object({
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  size: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  reason: Type.Optional(StringEnum(LINE_REASONS)),
  status: Type.Optional(StringEnum(['OPEN', 'RESOLVED'])),
});
