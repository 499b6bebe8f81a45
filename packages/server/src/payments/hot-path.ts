import { sql } from 'kysely';
import type { Db } from '../db/database';
import { eventsInsertFrom } from '../events/outbox';
import { DEFAULT_FEE_PLAN, type FeePlan } from '../fees/fee-plan';
import { journalRows, ledgerInsertFrom } from '../ledger/ledger';
import { batchCalls, onePer } from '../lib/batch';
import { jsonParameter } from '../lib/json';
import { assertMove, stampOf } from '../lib/state-machine';
import type { CardRow } from '../vault/lookup';
import { jobsInsertFrom } from '../jobs/queue';
import { createPayments, type NewPayment } from './create-payment';
import { paymentFollowUps } from './payment-followups';
import { paymentEvent, type PaymentRow, type StatusJournals } from './payment-record';
import { PAYMENT_STATES, UNCHARGED_STATUSES } from './states';
import { isUuid } from '../lib/identifiers';

/**
 * The card payment hot path: the statements that the calls arriving together share (lib/batch.ts).
 * The calls made during one turn of the event loop run as one statement, so under load one round trip
 * and one commit serve many payments instead of one each: a payment's statements, not its work, were
 * what bounded throughput (docs/performance.md). Every other status change of Colibri is a plain
 * guarded update (payment-record.ts); only the two hottest calls are batched:
 *
 * - sendPayment: its read and its insert (`sendPaymentStatements`; the insert is createPayments, the
 *   shared form of payment creation in create-payment.ts), and
 * - the authorisation job: its read of the payment and its settlement (`authorizationStatements`).
 *
 * The job queue's delete of finished jobs (jobs/queue.ts), the sandbox simulator's record of an
 * operation without a fault (processor/sandbox-simulator.ts) and the transaction details read
 * (transaction-details.ts, a read with its own benchmark) share their statements the same way.
 *
 * A shared statement is atomic, and when it fails each of its calls runs again alone, so one bad row
 * fails only its own call. The rows travel as one JSON parameter, so one query text serves every
 * batch size, and the keys travel again as an array (`= any($1)`), so PostgreSQL finds the rows by
 * primary key whatever it guesses of the JSON's size.
 */
/** sendPayment's read and insert (send-payment.ts), one set per database handle. */
export const sendPaymentStatements = onePer((db: Db) => ({
  /** Reads what the sendPayment requests of one turn need before pricing (loadPaymentContexts). */
  loadContext: batchCalls((keys: readonly ContextKey[]) => loadPaymentContexts(db, keys)),
  /** Stores the payments of one turn (createPayments, payments/create-payment.ts). */
  insert: batchCalls((inputs: readonly NewPayment[]) => createPayments(db, inputs)),
}));

/** The authorisation job's read and settlement (process-payment.ts), one set per database handle. */
export const authorizationStatements = onePer((db: Db) => ({
  /** Reads the payments of the authorisation jobs of one turn, with their card and merchant clock. */
  load: batchCalls((tokens: readonly string[]) => loadForProcessing(db, tokens)),
  /** Settles the authorisations of one turn (settleAuthorizations). */
  settle: batchCalls((outcomes: readonly AuthorizationOutcome[]) => settleAuthorizations(db, outcomes)),
}));

export interface ContextKey {
  merchantId: string;
  personId: string;
  cardId: string;
  idempotencyKey: string | null;
}

/** What sendPayment reads before pricing a payment. */
export interface PaymentContext {
  contractId: string;
  clockOffsetMs: bigint;
  feePlan: FeePlan;
  person: { id: string } | undefined;
  card: { id: string; person_id: string; status: string } | undefined;
  /** The payment an earlier run of the same Idempotency-Key created, if any. */
  existingToken: string | null;
}

/**
 * Everything sendPayment reads, for many requests in one round trip: each merchant's contract and
 * clock, its fee plan, and the person and card (only the merchant's own: another merchant's are simply
 * absent).
 */
export async function loadPaymentContexts(db: Db, keys: readonly ContextKey[]): Promise<PaymentContext[]> {
  const wanted = keys.map((key, n) => ({
    n,
    merchant_id: key.merchantId,
    person_id: isUuid(key.personId) ? key.personId : null,
    card_id: isUuid(key.cardId) ? key.cardId : null,
    idempotency_key: key.idempotencyKey,
  }));
  // The id lists let the planner look rows up by key whatever it guesses of the JSON's size.
  const ids = (pick: (k: (typeof wanted)[number]) => string | null) => [...new Set(wanted.map(pick).filter((id): id is string => id !== null))];
  const { rows } = await sql<{
    n: number;
    contract_id: string;
    clock_offset_ms: bigint;
    plan: FeePlan | null;
    person_id: string | null;
    card_id: string | null;
    card_person_id: string | null;
    card_status: string | null;
    existing_token: string | null;
  }>`
    select k.n, m.contract_id, m.clock_offset_ms, f.plan, p.id as person_id, c.id as card_id, c.person_id as card_person_id, c.status as card_status,
      x.payment_token as existing_token
    from jsonb_to_recordset(${jsonParameter(wanted)}::jsonb) as k(n integer, merchant_id uuid, person_id uuid, card_id uuid, idempotency_key text)
    join merchants as m on m.id = k.merchant_id and m.id = any(${ids((k) => k.merchant_id)}::uuid[])
    left join fee_plans as f on f.merchant_id = m.id
    left join persons as p on p.merchant_id = m.id and p.id = k.person_id and p.id = any(${ids((k) => k.person_id)}::uuid[])
    left join cards as c on c.merchant_id = m.id and c.id = k.card_id and c.id = any(${ids((k) => k.card_id)}::uuid[])
    left join payments as x on x.merchant_id = m.id and x.idempotency_key = k.idempotency_key
      and x.idempotency_key = any(${ids((k) => k.idempotency_key)}::text[])`.execute(db);
  const byKey = new Map(rows.map((row) => [row.n, row]));
  return keys.map((key, n) => {
    const row = byKey.get(n);
    if (!row) throw new Error(`merchant ${key.merchantId} not found`);
    return {
      contractId: row.contract_id,
      clockOffsetMs: row.clock_offset_ms,
      feePlan: row.plan ?? DEFAULT_FEE_PLAN,
      person: row.person_id ? { id: row.person_id } : undefined,
      card: row.card_id && row.card_person_id && row.card_status ? { id: row.card_id, person_id: row.card_person_id, status: row.card_status } : undefined,
      existingToken: row.existing_token,
    };
  });
}

export type ProcessorCardRow = Pick<CardRow, 'key_id' | 'number_ciphertext' | 'exp_month' | 'exp_year' | 'holder_name' | 'scheme'>;

export interface LoadedForProcessing {
  payment: PaymentRow;
  card: ProcessorCardRow | undefined;
  clockOffsetMs: bigint;
}

/** Payments with their merchant's clock and their card (the merchant's own only), in one round trip; undefined where gone. */
export async function loadForProcessing(db: Db, paymentTokens: readonly string[]): Promise<(LoadedForProcessing | undefined)[]> {
  const rows = await db
    .selectFrom('payments as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .leftJoin('cards as c', (join) => join.onRef('c.id', '=', 'p.card_id').onRef('c.merchant_id', '=', 'p.merchant_id'))
    .selectAll('p')
    .select([
      'm.clock_offset_ms as __clock_offset_ms',
      'c.key_id as __card_key_id',
      'c.number_ciphertext as __card_number_ciphertext',
      'c.exp_month as __card_exp_month',
      'c.exp_year as __card_exp_year',
      'c.holder_name as __card_holder_name',
      'c.scheme as __card_scheme',
    ])
    .where(sql<boolean>`p.payment_token = any(${[...paymentTokens]}::uuid[])`)
    .execute();
  const loaded = new Map<string, LoadedForProcessing>();
  for (const row of rows) {
    const {
      __clock_offset_ms: clockOffsetMs,
      __card_key_id: keyId,
      __card_number_ciphertext: numberCiphertext,
      __card_exp_month: expMonth,
      __card_exp_year: expYear,
      __card_holder_name: holderName,
      __card_scheme: scheme,
      ...payment
    } = row;
    const card: ProcessorCardRow | undefined =
      keyId !== null && numberCiphertext !== null && expMonth !== null && expYear !== null && holderName !== null && scheme !== null
        ? { key_id: keyId, number_ciphertext: numberCiphertext, exp_month: expMonth, exp_year: expYear, holder_name: holderName, scheme }
        : undefined;
    loaded.set(payment.payment_token, { payment: payment as PaymentRow, card, clockOffsetMs });
  }
  return paymentTokens.map((token) => loaded.get(token));
}

/** What an authorisation's answer changes on its payment, beside the status and its time. */
export type AuthorizationPatch = Partial<Pick<PaymentRow, 'processor_id' | 'authorized_minor' | 'captured_minor' | 'error_code' | 'error_description'>>;

/** The processor's answer to one authorisation, as a move out of PROCESSING. */
export interface AuthorizationOutcome {
  /** The payment as the job read it (PROCESSING). */
  payment: PaymentRow;
  status: 'PAID' | 'PRE_AUTHORIZED' | 'DECLINED' | 'ERROR';
  at: Date;
  patch: AuthorizationPatch;
  journals?: StatusJournals | undefined;
}

/**
 * Settles many authorisations in one statement: each payment moves out of PROCESSING only if it is
 * still PROCESSING when the statement runs (no row lock; another attempt may have settled it first),
 * and its history line, event, follow-up jobs (payment-followups.ts), journals and, for DECLINED and
 * ERROR, the removal of its fees are written from the rows actually updated, so each exists exactly
 * when its move happened. Every
 * outcome sets the same columns (the row as it will be), so one query text serves every mix of
 * outcomes. Answers each outcome's updated row, in order, or undefined where the payment was no
 * longer PROCESSING.
 * @example const [paid] = await settleAuthorizations(db, [{ payment, status: 'PAID', at: now, patch, journals }]);
 */
export async function settleAuthorizations(db: Db, outcomes: readonly AuthorizationOutcome[]): Promise<(PaymentRow | undefined)[]> {
  // An UPDATE touches a row once per statement: a payment settled twice in one turn settles once, and
  // the second answer is undefined, as it would be a moment later (the payment is no longer PROCESSING).
  const firsts = outcomes.filter((outcome, i) => outcomes.findIndex((o) => o.payment.payment_token === outcome.payment.payment_token) === i);
  const rows = firsts.map(settledRow);
  const tokens = rows.map((row) => row.payment_token);
  const unchargedTokens = rows.filter((row) => UNCHARGED_STATUSES.includes(row.status)).map((row) => row.payment_token);
  const events = rows.map(paymentEvent);
  const jobs = rows.flatMap((row) => paymentFollowUps(row));
  const lines = firsts.flatMap((outcome, i) => (outcome.journals?.(rows[i] as PaymentRow) ?? []).flatMap(journalRows));
  const settled = rows.map((row) => Object.fromEntries(SETTLED_COLUMNS.map((column) => [column, row[column]])));
  const { rows: updated } = await sql<PaymentRow>`
    with outcome as (select * from jsonb_populate_recordset(null::payments, ${jsonParameter(settled)}::jsonb)),
    updated as (
      update payments as p set
        status = o.status, updated_at = o.updated_at, processor_id = o.processor_id,
        authorized_minor = o.authorized_minor, captured_minor = o.captured_minor,
        merchant_fees_minor = o.merchant_fees_minor, customer_fees_minor = o.customer_fees_minor,
        error_code = o.error_code, error_description = o.error_description,
        pre_authorized_at = o.pre_authorized_at, paid_at = o.paid_at, failed_at = o.failed_at
      from outcome as o
      where p.payment_token = any(${tokens}::uuid[]) and p.payment_token = o.payment_token and p.status = 'PROCESSING'
      returning p.*
    ),
    history as (
      insert into payment_status_history (payment_token, merchant_id, status, at)
      select payment_token, merchant_id, status, updated_at from updated
    ),
    uncharged_fees as (
      delete from payment_fees as f
      where f.payment_token = any(${unchargedTokens}::uuid[]) and f.payment_token in (select payment_token from updated)
    ),
    event as (${eventsInsertFrom('updated', 'payment_token', events)}),
    followups as (${jobsInsertFrom('updated', 'payment_token', jobs)}),
    ledger as (${ledgerInsertFrom('updated', 'payment_token', lines)})
    select * from updated`.execute(db);
  const byToken = new Map(updated.map((row) => [row.payment_token, row]));
  return outcomes.map((outcome) => (firsts.includes(outcome) ? byToken.get(outcome.payment.payment_token) : undefined));
}

/** The columns a settlement writes (the statement above sets each of them), and the key. */
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
  'failed_at',
] as const satisfies readonly (keyof PaymentRow)[];

/** The payment as an outcome leaves it: the columns the settlement writes, from the row the job read. */
function settledRow({ payment, status, at, patch }: AuthorizationOutcome): PaymentRow & { status: typeof status } {
  assertMove(PAYMENT_STATES, 'PROCESSING', status);
  const uncharged = UNCHARGED_STATUSES.includes(status) ? { merchant_fees_minor: 0n, customer_fees_minor: 0n } : {};
  return { ...payment, ...patch, ...uncharged, status, updated_at: at, ...stampOf(PAYMENT_STATES, status, at) };
}
