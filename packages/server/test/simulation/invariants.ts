import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../src/db/database';
import type { OperationResult } from '../../src/processor/processor';
import { FINAL_PAYMENT_STATUSES, FINAL_REFUND_STATUSES, PAYMENT_MOVES, PENDING_REFUND_STATUSES, PRE_AUTHORIZATION_TTL_HOURS, REFUND_MOVES, type Model, type ModelPayment } from './model';
import type { ProcessorCall, RecordingProcessor } from './processor-log';

/**
 * The invariants, checked after every step and at the end. Colibri is read only through the tables
 * every design of its internals keeps (payments, refunds, ledger_entries, events, jobs) and the sandbox
 * processor's own record (sandbox_operations); amounts the record lacks come from the log of calls
 * (processor-log.ts).
 */
export interface Violation {
  /** A short class, stable across runs: the regression list names defects by it. */
  readonly code:
    | 'ledger-unbalanced'
    | 'hold-release'
    | 'captured-above-authorised'
    | 'refunded-above-captured'
    | 'processor-disagrees'
    | 'events'
    | 'ttl'
    | 'details'
    | 'keyed-retry'
    | 'unknown-unreported'
    | 'job-failed'
    | 'server-error';
  readonly message: string;
}

interface PaymentRow {
  payment_token: string;
  merchant_id: string;
  status: string;
  delay_capture: boolean;
  amount_minor: bigint;
  customer_fees_minor: bigint;
  authorized_minor: bigint;
  captured_minor: bigint;
  refunded_minor: bigint;
  processor_id: string | null;
}

interface RefundRow {
  refund_id: string;
  payment_token: string;
  status: string;
  amount_minor: bigint;
}

interface OperationRow {
  merchant_id: string;
  reference: string;
  operation: string;
  result: OperationResult;
}

/** What the processor did for one payment, from its record and the amounts of the calls. */
interface ProcessorView {
  authorization?: { call: ProcessorCall | undefined; result: OperationResult };
  captures: { amountMinor: bigint; result: OperationResult }[];
  cancels: OperationResult[];
  refunds: { amountMinor: bigint; result: OperationResult }[];
}

export interface Snapshot {
  readonly payments: PaymentRow[];
  readonly refunds: RefundRow[];
  readonly processor: Map<string, ProcessorView>;
  readonly journals: { journal_id: string; resource_id: string | null; currency: string; total: bigint; held: bigint }[];
  readonly events: { resource_type: string; resource_id: string; status: string }[];
  readonly jobs: { stuck_since: unknown; failed_at: unknown; last_error: string | null }[];
}

const big = (value: unknown): bigint => BigInt(String(value));

/**
 * Everything the checks read, in one statement (one round trip per step: the checks run after every
 * step, and PGlite's cost is per statement). Amounts travel as text and are read back as bigint.
 */
export async function snapshot(db: Db, model: Model, log: RecordingProcessor, options: { final: boolean }): Promise<Snapshot> {
  const merchants = model.merchantIds();
  const list = (query: RawBuilder<unknown>) => sql`(select coalesce(json_agg(row_to_json(x)), '[]'::json) from (${query}) as x)`;
  const { rows } = await sql<{ payments: Raw[]; refunds: Raw[]; journals: Raw[]; events: Snapshot['events']; operations: OperationRow[]; jobs: Snapshot['jobs'] }>`
    select
      ${list(sql`select payment_token, merchant_id, status, delay_capture, amount_minor::text, customer_fees_minor::text, authorized_minor::text,
          captured_minor::text, refunded_minor::text, processor_id
        from payments where merchant_id = any(${merchants}::uuid[])`)} as payments,
      ${list(sql`select refund_id::text, payment_token, status, amount_minor::text from refunds where merchant_id = any(${merchants}::uuid[])`)} as refunds,
      ${list(sql`select journal_id::text, resource_id, currency, sum(amount_minor)::text as total,
          sum(case when account = 'card_authorizations' then amount_minor else 0 end)::text as held
        from ledger_entries where merchant_id = any(${merchants}::uuid[]) group by journal_id, resource_id, currency`)} as journals,
      ${list(sql`select resource_type, resource_id, coalesce(data->>'status', data->>'refund_status') as status
        from events where merchant_id = any(${merchants}::uuid[]) and resource_type in ('payment', 'refund') order by sequence, created_at`)} as events,
      ${list(sql`select merchant_id, reference, operation, result from sandbox_operations
        where merchant_id = any(${merchants}::uuid[]) and operation in ('authorize', 'capture', 'cancel', 'refund')`)} as operations,
      ${options.final ? list(sql`select stuck_since, failed_at, last_error from jobs`) : sql`'[]'::json`} as jobs`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('no snapshot');
  const parse = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
  const amounts = <T>(raws: Raw[], columns: readonly string[]): T[] =>
    raws.map((raw) => Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, columns.includes(k) ? big(v) : v])) as T);
  const payments = amounts<PaymentRow>(parse(row.payments), ['amount_minor', 'customer_fees_minor', 'authorized_minor', 'captured_minor', 'refunded_minor']);
  const refunds = amounts<RefundRow>(parse(row.refunds), ['amount_minor']);
  const journals = amounts<Snapshot['journals'][number]>(parse(row.journals), ['total', 'held']);
  // Only the final check reads the queue (the service's jobs, whatever their payloads).
  const jobs = parse<Snapshot['jobs']>(row.jobs);
  return { payments, refunds, journals, events: parse(row.events), jobs, processor: processorViews(model, log, payments, parse(row.operations)) };
}

type Raw = Record<string, unknown>;

/**
 * The processor's record, per payment. An authorisation belongs to the payment whose token its
 * reference carries or, failing that, whose processor id it answered; a capture, void or refund
 * follows the authorisation whose processor id it was sent with.
 */
function processorViews(model: Model, log: RecordingProcessor, payments: PaymentRow[], operations: OperationRow[]): Map<string, ProcessorView> {
  const views = new Map<string, ProcessorView>(model.payments.map((p) => [p.token, { captures: [], cancels: [], refunds: [] }]));
  const byAuthorization = new Map<string, string>();
  for (const op of operations.filter((o) => o.operation === 'authorize')) {
    const approvedId = op.result.status === 'APPROVED' ? op.result.processorId : undefined;
    const token =
      model.payments.find((p) => op.reference.includes(p.token))?.token ??
      (approvedId ? payments.find((p) => p.processor_id === approvedId)?.payment_token : undefined);
    const view = token ? views.get(token) : undefined;
    if (!token || !view) continue;
    view.authorization = { call: log.call(op.merchant_id, op.reference), result: op.result };
    if (approvedId) byAuthorization.set(approvedId, token);
  }
  for (const op of operations.filter((o) => o.operation !== 'authorize')) {
    const call = log.call(op.merchant_id, op.reference);
    const token = call?.processorId ? byAuthorization.get(call.processorId) : undefined;
    const view = token ? views.get(token) : undefined;
    if (!call || !view) continue;
    if (op.operation === 'capture') view.captures.push({ amountMinor: call.amountMinor, result: op.result });
    else if (op.operation === 'cancel') view.cancels.push(op.result);
    else view.refunds.push({ amountMinor: call.amountMinor, result: op.result });
  }
  return views;
}

const approved = (result: OperationResult) => result.status === 'APPROVED';

/**
 * Checks one snapshot. `final`: every operation has had its chance to settle (faults healed, queue
 * drained), so what is still unknown must be reported, and each payment's holds are exactly as its
 * status says.
 */
export function check(model: Model, snap: Snapshot, options: { final: boolean; afterSweep: boolean }): Violation[] {
  const violations: Violation[] = [];
  const fail = (code: Violation['code'], message: string) => violations.push({ code, message });

  // The ledger balances: every journal, and so every currency.
  for (const j of snap.journals) if (j.total !== 0n) fail('ledger-unbalanced', `journal ${j.journal_id} (${j.resource_id}, ${j.currency}) is off by ${j.total}`);

  const refundsOf = (token: string) => snap.refunds.filter((r) => r.payment_token === token);
  for (const payment of snap.payments) {
    const modelPayment = model.payment(payment.payment_token);
    const label = `payment ${payment.payment_token} (${payment.status})`;
    // Holds and releases: at most one each per authorisation, a release only of a hold.
    const journals = snap.journals.filter((j) => j.resource_id === payment.payment_token);
    const holds = journals.filter((j) => j.held > 0n).length;
    const releases = journals.filter((j) => j.held < 0n).length;
    if (holds > 1 || releases > 1 || releases > holds) fail('hold-release', `${label}: ${holds} holds and ${releases} releases posted`);
    if (options.final) {
      const expected = expectedHolds(payment);
      if (expected && (holds !== expected.holds || releases !== expected.releases)) {
        fail('hold-release', `${label}: ${holds} holds and ${releases} releases posted, ${expected.holds} and ${expected.releases} expected`);
      }
    }
    if (payment.captured_minor > payment.authorized_minor) fail('captured-above-authorised', `${label}: captured ${payment.captured_minor} > authorised ${payment.authorized_minor}`);
    if (payment.refunded_minor > payment.captured_minor + payment.customer_fees_minor) fail('refunded-above-captured', `${label}: refunded ${payment.refunded_minor} > captured ${payment.captured_minor}`);

    const view = snap.processor.get(payment.payment_token);
    if (view && modelPayment) checkProcessor(payment, modelPayment, view, refundsOf(payment.payment_token), fail);

    // The TTL counts from the first pre-authorisation: once swept, none outlives it.
    const age = modelPayment ? model.preAuthorizedFor(modelPayment) : undefined;
    if (options.afterSweep && payment.status === 'PRE_AUTHORIZED' && age !== undefined && age >= PRE_AUTHORIZATION_TTL_HOURS) {
      fail('ttl', `${label}: still pre-authorised ${age} h after it was first pre-authorised, after the TTL sweep`);
    }
  }

  checkEvents(snap, fail);

  if (options.final) {
    const unknown = [
      ...snap.payments.filter((p) => p.status === 'PROCESSING').map((p) => `payment ${p.payment_token}`),
      ...snap.refunds.filter((r) => PENDING_REFUND_STATUSES.includes(r.status)).map((r) => `refund ${r.refund_id}`),
    ];
    const reported = snap.jobs.filter((j) => j.stuck_since !== null || j.failed_at !== null);
    if (unknown.length > 0 && reported.length === 0) fail('unknown-unreported', `${unknown.join(', ')} still unsettled once the processor healed, and no operation reported stuck`);
    for (const job of snap.jobs.filter((j) => j.failed_at !== null)) fail('job-failed', `a job failed every attempt: ${job.last_error}`);
  }
  return violations;
}

/** Holds and releases a settled payment should have: none without a pre-authorisation, one of each once it ends. */
function expectedHolds(payment: PaymentRow): { holds: number; releases: number } | undefined {
  if (payment.status === 'PROCESSING') return undefined;
  if (!payment.delay_capture || payment.status === 'DECLINED' || payment.status === 'ERROR') return { holds: 0, releases: 0 };
  if (payment.status === 'PRE_AUTHORIZED') return { holds: 1, releases: 0 };
  return { holds: 1, releases: 1 };
}

/** What the processor authorised, captured, voided and refunded is what Colibri shows, for a payment with nothing in flight. */
function checkProcessor(payment: PaymentRow, model: ModelPayment, view: ProcessorView, refunds: RefundRow[], fail: (code: Violation['code'], message: string) => void) {
  const label = `payment ${payment.payment_token} (${payment.status})`;
  const approvedCaptures = view.captures.filter((c) => approved(c.result));
  const approvedCancels = view.cancels.filter(approved);
  // Whatever is in flight: the processor never moves money twice for one payment.
  if (approvedCaptures.length > 1) fail('processor-disagrees', `${label}: the processor captured ${approvedCaptures.length} times`);
  if (approvedCancels.length > 1) fail('processor-disagrees', `${label}: the processor voided ${approvedCancels.length} times`);
  if (approvedCaptures.length > 0 && approvedCancels.length > 0) fail('processor-disagrees', `${label}: the processor both captured and voided`);
  if (payment.status === 'PROCESSING' || refunds.some((r) => PENDING_REFUND_STATUSES.includes(r.status))) return;

  const authorization = view.authorization && approved(view.authorization.result) ? view.authorization : undefined;
  const authorizedStatuses = ['PRE_AUTHORIZED', 'PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'CANCELED'];
  if (authorization && !authorizedStatuses.includes(payment.status)) fail('processor-disagrees', `${label}: the processor authorised it`);
  if (!authorization && authorizedStatuses.includes(payment.status)) fail('processor-disagrees', `${label}: the processor has no authorisation of it`);
  if (authorization?.result.status === 'APPROVED' && payment.processor_id !== authorization.result.processorId) {
    fail('processor-disagrees', `${label}: processor id ${payment.processor_id}, the processor's authorisation is ${authorization.result.processorId}`);
  }
  if (authorization?.call && authorization.call.amountMinor !== model.amountMinor + payment.customer_fees_minor) {
    fail('processor-disagrees', `${label}: the processor authorised ${authorization.call.amountMinor}, the merchant asked ${model.amountMinor}`);
  }
  const captured = authorization?.call?.capture ? authorization.call.amountMinor - payment.customer_fees_minor : approvedCaptures.reduce((sum, c) => sum + c.amountMinor, 0n);
  if (authorization?.call && captured !== payment.captured_minor) fail('processor-disagrees', `${label}: the processor captured ${captured}, Colibri shows ${payment.captured_minor}`);
  if ((approvedCancels.length > 0) !== (payment.status === 'CANCELED')) fail('processor-disagrees', `${label}: the processor ${approvedCancels.length > 0 ? 'voided' : 'did not void'} it`);
  const refunded = view.refunds.filter((r) => approved(r.result)).reduce((sum, r) => sum + r.amountMinor, 0n);
  const completed = refunds.filter((r) => r.status === 'COMPLETED').reduce((sum, r) => sum + r.amount_minor, 0n);
  if (refunded !== payment.refunded_minor || refunded !== completed) {
    fail('processor-disagrees', `${label}: the processor refunded ${refunded}, Colibri shows ${payment.refunded_minor} refunded and ${completed} in completed refunds`);
  }
}

/** Every status change has its event, in order (of the events' sequence numbers): each move allowed, the last one the current status, a final status once. */
function checkEvents(snap: Snapshot, fail: (code: Violation['code'], message: string) => void) {
  const current = new Map<string, string>([
    ...snap.payments.map((p) => [`payment ${p.payment_token}`, p.status] as const),
    ...snap.refunds.map((r) => [`refund ${r.refund_id}`, r.status] as const),
  ]);
  const byResource = new Map<string, Snapshot['events']>();
  for (const event of snap.events) {
    const key = `${event.resource_type} ${event.resource_id}`;
    byResource.set(key, [...(byResource.get(key) ?? []), event]);
  }
  for (const [key, status] of current) {
    const events = byResource.get(key) ?? [];
    const isPayment = key.startsWith('payment');
    const moves = isPayment ? PAYMENT_MOVES : REFUND_MOVES;
    const finals = isPayment ? FINAL_PAYMENT_STATUSES : FINAL_REFUND_STATUSES;
    const statuses = events.map((e) => e.status);
    // A refund the processor never saw is announced only once it was (refunds/request-refund.ts).
    if (events.length === 0) {
      if (!(key.startsWith('refund') && status === 'REQUESTED')) fail('events', `${key} (${status}) has no event`);
      continue;
    }
    if (statuses[statuses.length - 1] !== status) fail('events', `${key} is ${status}, its last event says ${statuses[statuses.length - 1]} (${statuses.join(' → ')})`);
    for (let i = 1; i < statuses.length; i++) {
      const from = statuses[i - 1] as string;
      if (!(moves[from] ?? []).includes(statuses[i] as string)) fail('events', `${key}: events move ${from} → ${statuses[i]} (${statuses.join(' → ')})`);
    }
    for (const final of finals) {
      const count = statuses.filter((s) => s === final).length;
      if (count > 1) fail('events', `${key}: ${count} events of its final status ${final}`);
    }
  }
}
