import { applyPpm, formatAmount } from '../lib/money';
import { exponentOf } from '../lib/currencies';
import { RECORD_TYPES, type RecordType, type SettlementLine } from './settlement-details-format';

/**
 * How a report's line is matched against Colibri's records (docs/reconciliation.md, "Matching"). Every
 * rule is data here; the importer (import-report.ts) looks the records up and `classify` gives the
 * verdict, so a test can read the rules without a database.
 */

/** What a run finds for a line or an operation (the last two are the ones the contract counts apart). */
export const LINE_REASONS = ['AMOUNT_MISMATCH', 'FEE_MISMATCH', 'MISSING_IN_COLIBRI', 'MISSING_AT_PROCESSOR'] as const;
export type LineReason = (typeof LINE_REASONS)[number];

/** The record types that settle an operation of Colibri's. */
export type SettlingType = { [T in RecordType]: (typeof RECORD_TYPES)[T] extends null ? never : T }[RecordType];

/**
 * For each record type that settles an operation: the direction of its money (+1 to Colibri, a
 * credit; -1 from it, a debit), and the states of Colibri's record in which it agrees that this money
 * moved. A payment is CAPTURED once paid (whatever was refunded since); a dispute's state is its status,
 * or INQUIRY while it is one (no money moved yet).
 */
export const SETTLING_RULES: Readonly<Record<SettlingType, { direction: 1n | -1n; states: readonly string[] }>> = {
  Settled: { direction: 1n, states: ['CAPTURED'] },
  Refunded: { direction: -1n, states: ['COMPLETED'] },
  // Colibri marks no completed refund as returned, so a reversed refund is never Colibri's: found for the operator.
  RefundedReversed: { direction: 1n, states: ['REVERSED'] },
  Chargeback: { direction: -1n, states: ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED'] },
  SecondChargeback: { direction: -1n, states: ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED'] },
  ChargebackReversed: { direction: 1n, states: ['WON'] },
};

/** The parts of a processor's fee on a line, as the report splits them. */
export interface FeeParts {
  readonly commission: bigint;
  readonly markup: bigint;
  readonly schemeFees: bigint;
  readonly interchange: bigint;
}

/**
 * A processor's published price: per record type, parts per million of the gross amount, each part
 * rounded half up to the minor unit. A type not listed is free.
 */
export type FeeSchedule = Readonly<Partial<Record<SettlingType, { readonly [K in keyof FeeParts]?: bigint }>>>;

/**
 * The simulator's price, by which its settlement report is written (sandbox-report.ts) and its lines
 * checked: interchange++ on a card sale (interchange 1.30%, scheme fees 0.10%, markup 0.60%: 2% in all),
 * nothing on a refund.
 */
export const SANDBOX_FEES: FeeSchedule = {
  Settled: { interchange: 13_000n, schemeFees: 1_000n, markup: 6_000n },
};

/** The fee parts a schedule gives a line of `type` and `grossMinor` (positive). */
export function feesOf(schedule: FeeSchedule, type: SettlingType, grossMinor: bigint): FeeParts {
  const rates = schedule[type] ?? {};
  const part = (ppm: bigint | undefined) => (ppm === undefined ? 0n : applyPpm(grossMinor, ppm));
  return { commission: part(rates.commission), markup: part(rates.markup), schemeFees: part(rates.schemeFees), interchange: part(rates.interchange) };
}

export function totalFee(parts: FeeParts): bigint {
  return parts.commission + parts.markup + parts.schemeFees + parts.interchange;
}

/**
 * What Colibri knows of the processors it reconciles:
 * - `disputes`: the processor name Colibri's disputes carry for it (disputes.processor);
 * - `fees`: the schedule its fees are checked against, or null when Colibri has none for it. Adyen's
 *   fees depend on each card's interchange, which Colibri does not know: only each line's own sums are
 *   checked (its net is its gross less its fees). An operator who agreed a blended rate adds it here;
 * - `settlesInBusinessDays`: how many business days after a capture or a refund the processor's
 *   settlement should list it; an operation still unlisted after that is MISSING_AT_PROCESSOR.
 */
export const RECONCILED_PROCESSORS = {
  adyen: { disputes: 'adyen', fees: null, settlesInBusinessDays: 2 },
  sandbox: { disputes: 'sandbox', fees: SANDBOX_FEES, settlesInBusinessDays: 1 },
  pix: { disputes: 'pix', fees: null, settlesInBusinessDays: 0 },
} as const satisfies Record<string, { disputes: string; fees: FeeSchedule | null; settlesInBusinessDays: number }>;

export type ReconciledProcessor = keyof typeof RECONCILED_PROCESSORS;
export const RECONCILED_PROCESSOR_NAMES = Object.keys(RECONCILED_PROCESSORS) as ReconciledProcessor[];

/** Colibri's record a line names, as the importer found it. */
export interface ColibriRecord {
  readonly merchantId: string | null;
  /** The record itself (payment token, refund id, dispute id); null when none has the line's reference. */
  readonly resourceId: string | null;
  readonly expectedMinor: bigint | null;
  readonly currency: string | null;
  readonly state: string | null;
  /** The processor's id of the payment, which the line's Psp Reference must be. */
  readonly processorId: string | null;
}

export interface Verdict {
  readonly reason: LineReason | 'MATCHED';
  readonly detail: string;
  readonly expectedFeeMinor: bigint | null;
}

/**
 * A line's fees against the schedule, and its own sums: the net of a line in one currency is its
 * gross less the fees. Answers what is wrong, or undefined. `expected` is the schedule's fee when the
 * caller has it already.
 */
export function feeProblem(line: SettlementLine, schedule: FeeSchedule | null, expected = expectedFee(line, schedule)): { detail: string; expectedFeeMinor: bigint | null } | undefined {
  if (expected !== null && line.feeMinor !== expected) {
    return { detail: `the processor's fees are ${netMoney(line, line.feeMinor)}, its price gives ${netMoney(line, expected)}`, expectedFeeMinor: expected };
  }
  if (line.netCurrency === line.grossCurrency && line.netMinor !== line.grossMinor - line.feeMinor) {
    const detail = `the net ${netMoney(line, absolute(line.netMinor))} is not the gross ${netMoney(line, absolute(line.grossMinor))} with the fees ${netMoney(line, line.feeMinor)} taken`;
    return { detail, expectedFeeMinor: expected };
  }
  return undefined;
}

/** The fee a schedule gives a line, or null without a schedule. */
export function expectedFee(line: SettlementLine, schedule: FeeSchedule | null): bigint | null {
  return schedule === null ? null : totalFee(feesOf(schedule, line.type as SettlingType, absolute(line.grossMinor)));
}

function netMoney(line: SettlementLine, minor: bigint): string {
  return formatAmount(minor, exponentOf(line.netCurrency || line.grossCurrency));
}

/**
 * The verdict on one line that settles an operation, given Colibri's record it names (undefined when
 * it names none). In this order: a line with no record of Colibri's, or one in a state that settles
 * nothing, or of another processor payment, is MISSING_IN_COLIBRI; then a different amount or currency
 * is AMOUNT_MISMATCH; then fees that are not the price, or a net that is not the gross less the fees, is
 * FEE_MISMATCH; else it matches.
 * @example classify(line, { merchantId, resourceId: token, expectedMinor: 1000n, currency: 'BRL', state: 'CAPTURED', processorId: 'psp1' }, null).reason // 'MATCHED'
 */
export function classify(line: SettlementLine, record: ColibriRecord | undefined, schedule: FeeSchedule | null): Verdict {
  const type = line.type as SettlingType;
  const rule = SETTLING_RULES[type];
  const what = RECORD_TYPES[type] as string;
  const amount = rule.direction * line.grossMinor;
  const money = (minor: bigint, currency: string) => `${formatAmount(minor, exponentOf(currency))} ${currency}`;
  if (!record || record.resourceId === null) {
    return { reason: 'MISSING_IN_COLIBRI', detail: `Colibri has no ${what} with this line's reference`, expectedFeeMinor: null };
  }
  if (!rule.states.includes(record.state ?? '')) {
    return { reason: 'MISSING_IN_COLIBRI', detail: `Colibri's ${what} ${record.resourceId} is ${record.state}; a ${type} line needs it ${rule.states.join(' or ')}`, expectedFeeMinor: null };
  }
  if (line.pspReference !== '' && record.processorId !== null && line.pspReference !== record.processorId) {
    return { reason: 'MISSING_IN_COLIBRI', detail: `the line's Psp Reference ${line.pspReference} is not ${record.processorId}, the processor's id of Colibri's payment`, expectedFeeMinor: null };
  }
  if (record.currency !== line.grossCurrency || record.expectedMinor !== amount) {
    return {
      reason: 'AMOUNT_MISMATCH',
      detail: `the line moves ${money(amount, line.grossCurrency)}, Colibri's ${what} ${money(record.expectedMinor ?? 0n, record.currency ?? line.grossCurrency)}`,
      expectedFeeMinor: null,
    };
  }
  const fee = feeProblem(line, schedule);
  if (fee) return { reason: 'FEE_MISMATCH', ...fee };
  return { reason: 'MATCHED', detail: '', expectedFeeMinor: null };
}

function absolute(minor: bigint): bigint {
  return minor < 0n ? -minor : minor;
}
