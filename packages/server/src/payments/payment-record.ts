import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database';
import { eventsInsertFrom, type NewEvent } from '../events/outbox';
import { journalRows, ledgerInsertFrom, type JournalInput, type LedgerRow } from '../ledger/ledger';
import { jsonParameter } from '../lib/json';
import { CURRENCY_EXPONENTS, toJsonNumber, type Currency } from '../lib/money';
import type { PaymentsTable } from '../db/tables/payments';
import type { PaymentStatus } from './states';

export type PaymentRow = Selectable<PaymentsTable>;

/**
 * Loads a merchant's payment and locks its row for the rest of the transaction, so two requests
 * racing on one payment (captures, cancels, refunds) are serialised and the second sees the first's
 * result. Another merchant's payment, or a malformed token, is simply not found.
 * @example const payment = await lockPayment(trx, merchantId, token);
 */
export async function lockPayment(trx: Db, merchantId: string, paymentToken: string): Promise<PaymentRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(paymentToken)) return undefined;
  return trx
    .selectFrom('payments')
    .selectAll()
    .where('payment_token', '=', paymentToken)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
}

/** The timestamp column each status stamps, so every terminal state has its own time. */
const STATUS_TIMESTAMPS: Partial<Record<PaymentStatus, 'pre_authorized_at' | 'paid_at' | 'canceled_at' | 'failed_at'>> = {
  PRE_AUTHORIZED: 'pre_authorized_at',
  PAID: 'paid_at',
  CANCELED: 'canceled_at',
  EXPIRED: 'canceled_at',
  DECLINED: 'failed_at',
  ERROR: 'failed_at',
};

/**
 * Moves a payment to a new status: the row, its history line and its `payment.status_changed` event,
 * and the ledger journals given, in one statement (so one round trip, atomic by itself). The
 * caller holds the row lock (lockPayment) and has checked the move (states.ts).
 * @example await changeStatus(trx, payment, 'PAID', now, { captured_minor: payment.amount_minor });
 */
export async function changeStatus(
  db: Db,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: StatusPatch = {},
  journals?: StatusChange['journals'],
): Promise<PaymentRow> {
  const [updated] = await changeStatuses(db, [{ payment, status, at, patch, journals }]);
  if (!updated) throw new Error(`payment ${payment.payment_token} vanished during a status change`);
  return updated;
}

/**
 * Like changeStatus, but without a row lock: the change applies only if the payment is still in
 * `from` when the statement runs; otherwise nothing is written and the answer is undefined.
 * @example const paid = await changeStatusIf(db, 'PROCESSING', payment, 'PAID', now, patch, (row) => [captureJournal(row, now)]);
 */
export async function changeStatusIf(
  db: Db,
  from: PaymentStatus,
  payment: PaymentRow,
  status: PaymentStatus,
  at: Date,
  patch: StatusPatch = {},
  journals?: StatusChange['journals'],
): Promise<PaymentRow | undefined> {
  const [updated] = await changeStatuses(db, [{ payment, status, at, patch, journals, from }]);
  return updated;
}

type StatusPatch = Partial<Omit<PaymentRow, 'payment_token' | 'created_at'>>;

/** One status change of a payment (see changeStatus and changeStatusIf). */
export interface StatusChange {
  payment: PaymentRow;
  status: PaymentStatus;
  at: Date;
  patch?: StatusPatch | undefined;
  /** The journals of the change, from the row as it will be. */
  journals?: ((updated: PaymentRow) => readonly JournalInput[]) | undefined;
  /** Applies the change only if the payment is still in this status (no row lock needed). */
  from?: PaymentStatus | undefined;
}

/**
 * Writes many status changes with one statement of data-modifying CTEs per kind of change (the
 * columns it sets and its `from` guard): the rows, and from the rows actually updated their history
 * lines, events and journals, so each exists exactly when its update happened; several statements
 * run in one transaction. The processor job settles a batch of authorisations this way. Answers each
 * change's updated row, in order, or undefined where a `from` guard did not match.
 * @example const [paid] = await changeStatuses(db, [{ payment, status: 'PAID', at: now, from: 'PROCESSING' }]);
 */
export async function changeStatuses(db: Db, changes: readonly StatusChange[]): Promise<(PaymentRow | undefined)[]> {
  const described = changes.map(describeChange);
  const statements = statementGroups(described);
  // All or nothing: several statements run in one transaction (a batch may be run again after a failure).
  if (statements.length > 1 && !db.isTransaction) return db.transaction().execute((trx) => changeStatuses(trx, changes));
  const answers: (PaymentRow | undefined)[] = changes.map(() => undefined);
  for (const group of statements) {
    const updated = new Map((await writeStatusGroup(db, group.map((i) => described[i] as DescribedChange))).map((row) => [row.payment_token, row]));
    for (const i of group) answers[i] = updated.get((described[i] as DescribedChange).set.payment_token);
  }
  return answers;
}

interface DescribedChange {
  set: Partial<PaymentRow> & { payment_token: string };
  from: PaymentStatus | undefined;
  event: NewEvent;
  lines: LedgerRow[];
}

/**
 * Statuses in which a payment moved no money: the fees priced at its creation were never charged, so
 * a move into one of them drops them (the row's totals and its fee lines, in the same statement).
 */
export const UNCHARGED_STATUSES: readonly PaymentStatus[] = ['DECLINED', 'ERROR'];

/** The columns a change sets, and its event and journal lines, computed from the row as it will be. */
function describeChange({ payment, status, at, patch = {}, journals, from }: StatusChange): DescribedChange {
  const stamp = STATUS_TIMESTAMPS[status];
  const uncharged = UNCHARGED_STATUSES.includes(status) ? { merchant_fees_minor: 0n, customer_fees_minor: 0n } : {};
  const changes = { ...patch, ...uncharged, status, updated_at: at, ...(stamp ? { [stamp]: at } : {}) };
  const expected: PaymentRow = { ...payment, ...changes };
  return {
    set: { payment_token: payment.payment_token, ...changes },
    from,
    event: paymentEvent(expected),
    lines: (journals?.(expected) ?? []).flatMap(journalRows),
  };
}

/**
 * The changes (as indices) that share a statement: the same columns set and the same guard, each
 * payment at most once, since an UPDATE touches a row once per statement. Where a payment comes again,
 * the changes after it start a new series of statements, run after the first: a payment's changes
 * apply in the order given.
 */
function statementGroups(changes: readonly DescribedChange[]): number[][] {
  const statements: number[][] = [];
  let series = new Map<string, number[]>();
  let tokens = new Set<string>();
  const close = () => statements.push(...series.values());
  changes.forEach((change, i) => {
    if (tokens.has(change.set.payment_token)) {
      close();
      series = new Map();
      tokens = new Set();
    }
    const shape = `${change.from ?? ''}:${Object.keys(change.set).sort().join(',')}`;
    const statement = series.get(shape);
    if (statement) statement.push(i);
    else series.set(shape, [i]);
    tokens.add(change.set.payment_token);
  });
  close();
  return statements;
}

async function writeStatusGroup(db: Db, group: readonly DescribedChange[]): Promise<PaymentRow[]> {
  const [first] = group;
  if (!first) return [];
  const columns = Object.keys(first.set).filter((column) => column !== 'payment_token');
  const assignments = sql.join(columns.map((column) => sql`${sql.ref(column)} = v.${sql.ref(column)}`));
  const guard = first.from === undefined ? sql`` : sql`and p.status = ${first.from}`;
  // The token list lets the planner find the rows by primary key whatever it guesses of the JSON's size
  // (a generic plan made while the table was small would otherwise scan it whole).
  const tokens = group.map((c) => c.set.payment_token);
  // Only a group that moves payments into an uncharged status deletes fee lines (the group shares its
  // columns, and only those moves set the fee totals to zero); the others keep the statement as it was.
  const unchargedTokens = group.filter((c) => UNCHARGED_STATUSES.includes(c.set.status as PaymentStatus)).map((c) => c.set.payment_token);
  const dropFees =
    unchargedTokens.length === 0
      ? sql``
      : sql`, uncharged_fees as (
      delete from payment_fees as f where f.payment_token = any(${unchargedTokens}::uuid[])
        and f.payment_token in (select payment_token from updated)
    )`;
  const { rows } = await sql<PaymentRow>`
    with v as (select * from jsonb_populate_recordset(null::payments, ${jsonParameter(group.map((c) => c.set))}::jsonb)),
    updated as (
      update payments as p set ${assignments}
      from v where p.payment_token = any(${tokens}::uuid[]) and p.payment_token = v.payment_token ${guard}
      returning p.*
    ),
    history as (
      insert into payment_status_history (payment_token, status, at)
      select payment_token, status, updated_at from updated
    ),
    event as (${eventsInsertFrom('updated', 'payment_token', group.map((c) => c.event))}),
    ledger as (${ledgerInsertFrom('updated', 'payment_token', group.flatMap((c) => c.lines))})${dropFees}
    select * from updated`.execute(db);
  return rows;
}

/** Ledger: the journal of money held (1n) or released (-1n) by a pre-authorisation (memo accounts). */
export function holdJournal(payment: PaymentRow, at: Date, direction: 1n | -1n, kind: string): JournalInput {
  const held = customerAmount(payment) * direction;
  return {
    merchantId: payment.merchant_id,
    kind,
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    lines: [
      { account: 'card_authorizations', amountMinor: held },
      { account: 'authorizations_outstanding', amountMinor: -held },
    ],
  };
}

/** Ledger: a capture. The processor owes what the customer paid; the merchant is owed it less merchant fees. */
export function captureJournal(payment: PaymentRow, at: Date): JournalInput {
  const customerPaid = payment.captured_minor + payment.customer_fees_minor;
  return {
    merchantId: payment.merchant_id,
    kind: 'capture',
    currency: payment.currency,
    resourceId: payment.payment_token,
    at,
    lines: [
      { account: 'processor_receivable', amountMinor: customerPaid },
      { account: 'merchant_payable', amountMinor: -(payment.captured_minor - payment.merchant_fees_minor) },
      { account: 'fee_revenue', amountMinor: -(payment.merchant_fees_minor + payment.customer_fees_minor) },
    ],
  };
}

/** The `payment.status_changed` event of a payment as it now is. */
export function paymentEvent(payment: EventFields): NewEvent {
  return {
    merchantId: payment.merchant_id,
    type: 'payment.status_changed',
    resourceType: 'payment',
    resourceId: payment.payment_token,
    data: paymentEventData(payment),
    notificationUrls: [payment.notification_url],
  };
}

type EventFields = Pick<
  PaymentRow,
  | 'payment_token'
  | 'merchant_id'
  | 'notification_url'
  | 'reference_id'
  | 'status'
  | 'method'
  | 'amount_minor'
  | 'currency'
  | 'customer_fees_minor'
  | 'captured_minor'
  | 'refunded_minor'
  | 'error_code'
  | 'error_description'
>;

/** The callback payload of a payment (docs/callbacks.md). */
export function paymentEventData(payment: EventFields): Record<string, unknown> {
  const exponent = exponentOf(payment.currency);
  return {
    payment_token: payment.payment_token,
    reference_id: payment.reference_id,
    status: payment.status,
    method: payment.method,
    amount: toJsonNumber(payment.amount_minor, exponent),
    asset: payment.currency,
    customer_amount: toJsonNumber(payment.amount_minor + payment.customer_fees_minor, exponent),
    captured_amount: toJsonNumber(payment.captured_minor, exponent),
    refunded_amount: toJsonNumber(payment.refunded_minor, exponent),
    error_code: payment.error_code,
    error_description: payment.error_description,
  };
}

export function exponentOf(currency: string): number {
  return CURRENCY_EXPONENTS[currency as Currency] ?? 2;
}

/** What the customer is charged: the amount plus customer fees. */
export function customerAmount(payment: Pick<PaymentRow, 'amount_minor' | 'customer_fees_minor'>): bigint {
  return payment.amount_minor + payment.customer_fees_minor;
}
