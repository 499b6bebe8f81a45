import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { FeeLine, StatusHistoryLine } from '../db/tables/payments';
import { eventsInsertFrom } from '../events/outbox';
import { computeFees, type PaymentFeeRules } from '../fees/fee-plan';
import { ledgerInsertFrom, type JournalInput } from '../ledger/ledger';
import { jobsInsertFrom } from '../jobs/queue';
import { batchCalls, onePer } from '../lib/batch';
import { jsonRows } from '../lib/json';
import { assertMove, stampOf } from '../lib/state-machine';
import type { OperationResult } from '../processor/processor';
import type { CardRow } from '../vault/lookup';
import type { OperationRow } from './operations';
import { paymentFollowUps } from './payment-followups';
import { captureJournal, feeLines, historyLine, holdJournal, paymentEvent, type PaymentRow } from './payment-record';
import { OPERATION_STATES, OUTCOME_MOVES, PAYMENT_STATES, UNCHARGED_STATUSES, type OperationStatus } from './states';

/**
 * The one way a processor's answer reaches Colibri's books (docs/architecture.md, "Money in flight"):
 * the job worker after sending an operation or asking the processor about it (process-payment.ts),
 * the job's abandonment at its deadline, and, through them, connector notifications and status
 * queries. Each answer is described once (describeOutcome: the operation's final status, the payment's
 * move from OUTCOME_MOVES, its fees, journals and event) and written by one statement for any number
 * of answers (applyOutcomes); the jobs of one turn of the event loop share it (outcomeStatements).
 *
 * The guard is the operation: its row moves out of REQUESTED once, so an answer applied twice (a job
 * that runs again, a duplicate notification, two workers racing on one job) changes nothing the second
 * time, and an answer for an operation that is no longer in flight never touches its payment.
 */

/**
 * The payment columns an operation's job reads (loadOperations): what it sends to the processor and what
 * settling its answer writes or announces, and the status times (a status keeps its first). Not the whole
 * row: the worker reads one per operation it settles, and parsing about 60 columns (three of them JSON)
 * and copying them took more of its time than the rest of the read (docs/performance.md, "eighth session").
 */
export const OPERATION_PAYMENT_COLUMNS = [
  'payment_token',
  'merchant_id',
  'reference_id',
  'status',
  'method',
  'currency',
  'amount_minor',
  'customer_fees_minor',
  'merchant_fees_minor',
  'authorized_minor',
  'captured_minor',
  'refunded_minor',
  'fee_rules',
  'installments',
  'delay_capture',
  'soft_descriptor',
  'processor_id',
  'notification_url',
  'checkout_id',
  'error_code',
  'error_description',
  'updated_at',
  'pre_authorized_at',
  'paid_at',
  'canceled_at',
  'failed_at',
  'refunded_at',
] as const satisfies readonly (keyof PaymentRow)[];

/** A payment as an operation's job reads it (OPERATION_PAYMENT_COLUMNS). */
export type OperationPayment = Pick<PaymentRow, (typeof OPERATION_PAYMENT_COLUMNS)[number]>;

/** A processor's answer to one operation, with the operation and its payment as the job read them. */
export interface OperationOutcome {
  operation: OperationRow;
  /** The payment as the job read it (PROCESSING while its operation is REQUESTED). */
  payment: OperationPayment;
  result: OperationResult;
  at: Date;
}

/** Everything one answer writes: the operation's final row, the payment as it will be, the history line it adds, its fee lines and journals. */
interface DescribedOutcome {
  operation: { id: string; status: OperationStatus; processor_id: string | null; result_code: string | null; result_description: string | null; approved_at: Date | null; declined_at: Date | null; failed_at: Date | null };
  payment: OperationPayment;
  /** The history line the move adds to the payment's status_history. */
  line: StatusHistoryLine;
  /** The fee lines that replace the payment's (a capture prices them again; an uncharged payment has none), or undefined where they stay. */
  feeLines: FeeLine[] | undefined;
  journals: JournalInput[];
}

const OPERATION_STATUS_OF: Readonly<Record<OperationResult['status'], Exclude<OperationStatus, 'REQUESTED'>>> = { APPROVED: 'APPROVED', DECLINED: 'DECLINED', ERROR: 'FAILED' };

/**
 * What one answer changes, computed from the operation and the payment as read: pure, so the batched
 * statement and every test read the same description.
 * @example const { payment } = describeOutcome({ operation, payment, result: { status: 'APPROVED', processorId: 'p-1' }, at: now });
 */
export function describeOutcome({ operation, payment, result, at }: OperationOutcome): DescribedOutcome {
  const status = OPERATION_STATUS_OF[result.status];
  assertMove(OPERATION_STATES, operation.status, status);
  const moveKey = operation.kind === 'authorize' && payment.delay_capture ? 'pre_authorize' : operation.kind;
  const to = OUTCOME_MOVES[moveKey][status];
  assertMove(PAYMENT_STATES, 'PROCESSING', to);
  const approved = result.status === 'APPROVED';
  const error = approved ? { error_code: null, error_description: null } : { error_code: result.code, error_description: result.description };
  const journals: JournalInput[] = [];
  let patch: Partial<OperationPayment> & { fee_lines?: FeeLine[] } = {};

  if (operation.kind === 'authorize' && approved) {
    patch = { processor_id: result.processorId, authorized_minor: payment.amount_minor, ...(to === 'PAID' ? { captured_minor: payment.amount_minor } : {}) };
  } else if (operation.kind === 'capture' && approved) {
    // A partial capture charges the payment's own fee rules (kept when it was created) on what was captured.
    const rules = payment.fee_rules as PaymentFeeRules;
    const breakdown = computeFees(rules.payments, operation.amount_minor, { installments: payment.installments, installmentInterestPpm: rules.installment_interest_ppm, installmentPlan: rules.installment_plan });
    patch = { captured_minor: operation.amount_minor, customer_fees_minor: breakdown.customerFeesMinor, merchant_fees_minor: breakdown.merchantFeesMinor, fee_lines: feeLines(breakdown.fees) };
    // The hold released is what was held: the amount with the fees as they were before the capture.
    journals.push(holdJournal(payment, at, -1n, 'release'));
  } else if (operation.kind === 'cancel' && approved) {
    journals.push(holdJournal(payment, at, -1n, 'release'));
  }
  if (UNCHARGED_STATUSES.includes(to)) {
    // Fees priced at creation were never charged.
    patch = { ...patch, merchant_fees_minor: 0n, customer_fees_minor: 0n, fee_lines: [] };
  }
  const line = historyLine(to, at);
  const { fee_lines: newFeeLines, ...settled } = patch;
  const after: OperationPayment = { ...payment, ...settled, ...error, status: to, updated_at: at, ...stampOf(PAYMENT_STATES, to, at, payment) };
  if (operation.kind === 'authorize' && to === 'PRE_AUTHORIZED') journals.push(holdJournal(after, at, 1n, 'authorization'));
  if (to === 'PAID') journals.push(captureJournal(after, at));
  return {
    operation: {
      id: operation.id,
      status,
      processor_id: approved ? result.processorId : null,
      result_code: approved ? null : result.code,
      result_description: approved ? null : result.description,
      approved_at: null,
      declined_at: null,
      failed_at: null,
      ...stampOf(OPERATION_STATES, status, at),
    },
    payment: after,
    line,
    feeLines: newFeeLines,
    journals,
  };
}

/**
 * Applies answers in one statement of data-modifying CTEs: each operation moves out of REQUESTED only
 * if it still is REQUESTED and its payment PROCESSING when the statement runs (its row lock serialises
 * two applications of one answer), and only then does its payment move, with its fee lines and history line (in its row),
 * `payment.status_changed` event and journals, all written from the rows actually updated. Every answer
 * sets the same columns (the row as it will be), so one query text serves every mix of answers. A
 * payment of a checkout session also gets its follow-up job (PAYMENT_CHANGED_JOB, payment-followups.ts). The
 * single form is this with one answer. Answers each outcome's updated payment, in order, or undefined
 * where its operation was no longer in flight.
 * @example const [paid] = await applyOutcomes(db, [{ operation, payment, result: { status: 'APPROVED', processorId }, at: now }]);
 */
export async function applyOutcomes(db: Db, outcomes: readonly OperationOutcome[]): Promise<(PaymentRow | undefined)[]> {
  const { firsts, rows } = await writeOutcomes(db, outcomes, 'rows');
  const byToken = new Map((rows as PaymentRow[]).map((row) => [row.payment_token, row]));
  return outcomes.map((outcome) => (firsts.includes(outcome) ? byToken.get(outcome.payment.payment_token) : undefined));
}

/**
 * applyOutcomes for a caller that needs only whether each answer moved its payment (the operation job):
 * the statement sends no payment row back, which the job, settling a hundred payments per statement,
 * would parse for nothing (about 60 columns each).
 * @example const [applied] = await applyOutcomesQuietly(db, [{ operation, payment, result, at: now }]);
 */
export async function applyOutcomesQuietly(db: Db, outcomes: readonly OperationOutcome[]): Promise<boolean[]> {
  const { firsts, rows } = await writeOutcomes(db, outcomes, 'tokens');
  const applied = new Set(rows.map((row) => row.payment_token));
  return outcomes.map((outcome) => firsts.includes(outcome) && applied.has(outcome.payment.payment_token));
}

/** The statement of applyOutcomes; `answer` says whether its last select sends the updated payments back whole or only their tokens. */
async function writeOutcomes(db: Db, outcomes: readonly OperationOutcome[], answer: 'rows' | 'tokens'): Promise<{ firsts: OperationOutcome[]; rows: Pick<PaymentRow, 'payment_token'>[] }> {
  // An UPDATE touches a row once per statement: an operation answered twice in one turn is settled by
  // its first answer, and the second answer is undefined, as it would be a moment later. An answer to
  // an operation read final already is undefined at once.
  const firsts = outcomes.filter((outcome, i) => outcome.operation.status === 'REQUESTED' && outcomes.findIndex((o) => o.operation.id === outcome.operation.id) === i);
  if (firsts.length === 0) return { firsts, rows: [] };
  const described = firsts.map(describeOutcome);
  const operations = described.map((d) => ({ ...d.operation, payment_token: d.payment.payment_token }));
  // Each row carries the history line its move adds (appended below, not the whole history) and, only
  // where they change, its new fee lines (left out otherwise, so they read as null and stay as they are).
  const payments = described.map((d) => ({
    ...Object.fromEntries(SETTLED_COLUMNS.map((column) => [column, d.payment[column]])),
    status_history: [d.line],
    fee_lines: d.feeLines ?? null,
  }));
  const journals = described.flatMap((d) => d.journals);
  const events = described.map((d) => paymentEvent(d.payment));
  const followUps = described.flatMap((d) => paymentFollowUps(d.payment));
  const { rows } = await sql<Pick<PaymentRow, 'payment_token'>>`
    with answer as (
      select * from json_to_recordset(${jsonRows(operations)}::json) as a(id uuid, payment_token uuid, status text, processor_id text,
        result_code text, result_description text, approved_at timestamptz, declined_at timestamptz, failed_at timestamptz)
    ),
    operation as (
      update payment_operations as o set
        status = a.status, processor_id = a.processor_id, result_code = a.result_code, result_description = a.result_description,
        approved_at = a.approved_at, declined_at = a.declined_at, failed_at = a.failed_at
      from answer as a
      -- Driven by the answers, each finding its operation by primary key. (With the ids also as
      -- \`o.id = any(…)\`, PostgreSQL drove from the operations it guessed to be one, and read the whole
      -- list of answers again for each: a tenth of the statement's time for a hundred answers.)
      where o.id = a.id and o.status = 'REQUESTED'
        and exists (select 1 from payments as p where p.payment_token = o.payment_token and p.status = 'PROCESSING')
      returning o.payment_token
    ),
    outcome as (select * from json_populate_recordset(null::payments, ${jsonRows(payments)}::json)),
    updated as (
      update payments as p set
        status = o.status, updated_at = o.updated_at, processor_id = o.processor_id,
        authorized_minor = o.authorized_minor, captured_minor = o.captured_minor,
        merchant_fees_minor = o.merchant_fees_minor, customer_fees_minor = o.customer_fees_minor,
        error_code = o.error_code, error_description = o.error_description,
        pre_authorized_at = o.pre_authorized_at, paid_at = o.paid_at, canceled_at = o.canceled_at, failed_at = o.failed_at,
        status_history = p.status_history || o.status_history, fee_lines = coalesce(o.fee_lines, p.fee_lines)
      from outcome as o, operation as x
      where p.payment_token = any(${described.map((d) => d.payment.payment_token)}::uuid[]) and p.payment_token = o.payment_token
        and x.payment_token = p.payment_token and p.status = 'PROCESSING'
      returning p.*
    ),
    event as (${eventsInsertFrom('updated', 'payment_token', events)}),
    followups as (${jobsInsertFrom('updated', 'payment_token', followUps)}),
    ledger as (${ledgerInsertFrom('updated', 'payment_token', journals)})
    select ${answer === 'rows' ? sql`*` : sql`payment_token`} from updated`.execute(db);
  return { firsts, rows };
}

/** The payment columns an answer writes (the statement above sets each of them), and the key. */
const SETTLED_COLUMNS = [
  'payment_token',
  'status',
  'updated_at',
  'processor_id',
  'authorized_minor',
  'captured_minor',
  'merchant_fees_minor',
  'customer_fees_minor',
  'error_code',
  'error_description',
  'pre_authorized_at',
  'paid_at',
  'canceled_at',
  'failed_at',
] as const satisfies readonly (keyof PaymentRow)[];

export type ProcessorCardRow = Pick<CardRow, 'key_id' | 'number_ciphertext' | 'exp_month' | 'exp_year' | 'holder_name' | 'scheme'>;

/** An operation with what its job needs: its payment, the payment's card (the merchant's own only) and the merchant's clock. */
export interface LoadedOperation {
  operation: OperationRow;
  payment: OperationPayment;
  card: ProcessorCardRow | undefined;
  clockOffsetMs: bigint;
}

/**
 * Operations with their payment, card and merchant clock, in one round trip; undefined where gone.
 * @example const [loaded] = await loadOperations(db, [job.payload.operationId]);
 */
export async function loadOperations(db: Db, operationIds: readonly string[]): Promise<(LoadedOperation | undefined)[]> {
  const rows = await db
    .selectFrom('payment_operations as o')
    .innerJoin('payments as p', 'p.payment_token', 'o.payment_token')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .leftJoin('cards as c', (join) => join.onRef('c.id', '=', 'p.card_id').onRef('c.merchant_id', '=', 'p.merchant_id'))
    .select(OPERATION_PAYMENT_COLUMNS.map((column) => `p.${column}` as const))
    .select([
      'm.clock_offset_ms as __clock_offset_ms',
      'o.id as __op_id',
      'o.kind as __op_kind',
      'o.status as __op_status',
      'o.amount_minor as __op_amount_minor',
      'o.reference as __op_reference',
      'o.reason as __op_reason',
      'o.processor_id as __op_processor_id',
      'o.result_code as __op_result_code',
      'o.result_description as __op_result_description',
      'o.idempotency_key as __op_idempotency_key',
      'o.requested_at as __op_requested_at',
      'o.approved_at as __op_approved_at',
      'o.declined_at as __op_declined_at',
      'o.failed_at as __op_failed_at',
      'c.key_id as __card_key_id',
      'c.number_ciphertext as __card_number_ciphertext',
      'c.exp_month as __card_exp_month',
      'c.exp_year as __card_exp_year',
      'c.holder_name as __card_holder_name',
      'c.scheme as __card_scheme',
    ])
    .where(sql<boolean>`o.id = any(${[...operationIds]}::uuid[])`)
    .execute();
  const loaded = new Map<string, LoadedOperation>();
  for (const row of rows) {
    // Destructured, not filtered: this runs for every operation the worker settles.
    const {
      __clock_offset_ms: clockOffsetMs,
      __op_id: id,
      __op_kind: kind,
      __op_status: status,
      __op_amount_minor: amount_minor,
      __op_reference: reference,
      __op_reason: reason,
      __op_processor_id: processor_id,
      __op_result_code: result_code,
      __op_result_description: result_description,
      __op_idempotency_key: idempotency_key,
      __op_requested_at: requested_at,
      __op_approved_at: approved_at,
      __op_declined_at: declined_at,
      __op_failed_at: failed_at,
      __card_key_id: keyId,
      __card_number_ciphertext: numberCiphertext,
      __card_exp_month: expMonth,
      __card_exp_year: expYear,
      __card_holder_name: holderName,
      __card_scheme: scheme,
      ...payment
    } = row;
    const { payment_token, merchant_id } = payment;
    const operation = { id, payment_token, merchant_id, kind, status, amount_minor, reference, reason, processor_id, result_code, result_description, idempotency_key, requested_at, approved_at, declined_at, failed_at } as OperationRow;
    const card: ProcessorCardRow | undefined =
      keyId !== null && numberCiphertext !== null && expMonth !== null && expYear !== null && holderName !== null && scheme !== null
        ? { key_id: keyId, number_ciphertext: numberCiphertext, exp_month: expMonth, exp_year: expYear, holder_name: holderName, scheme }
        : undefined;
    loaded.set(id, { operation, payment, card, clockOffsetMs });
  }
  return operationIds.map((id) => loaded.get(id));
}

/** The job's read and its settlement, shared by the jobs of one turn of the event loop (lib/batch.ts); one set per database handle. */
export const outcomeStatements = onePer((db: Db) => ({
  load: batchCalls((ids: readonly string[]) => loadOperations(db, ids)),
  apply: batchCalls((outcomes: readonly OperationOutcome[]) => applyOutcomesQuietly(db, outcomes)),
}));
