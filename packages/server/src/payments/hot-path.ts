import { sql } from 'kysely';
import type { Db } from '../db/database';
import { DEFAULT_FEE_PLAN, type FeePlan } from '../fees/fee-plan';
import { batchCalls, onePer } from '../lib/batch';
import { jsonParameter } from '../lib/json';
import { BoundedMap } from '../lib/bounded-map';
import { isUuid } from '../lib/identifiers';
import { createPayments, createPaymentsIfCurrent, type AssumedContext, type NewPayment } from './create-payment';

/**
 * The card payment hot path: the statements that the calls arriving together share (lib/batch.ts).
 * The calls made during one turn of the event loop run as one statement, so under load one round trip
 * and one commit serve many payments instead of one each: a payment's statements, not its work, were
 * what bounded throughput (docs/performance.md). Every other status change of Colibri is a plain
 * guarded update (payment-record.ts); only the two hottest calls are batched:
 *
 * - sendPayment: its read and its insert (`sendPaymentStatements`; the insert is createPayments, the
 *   shared form of payment creation in create-payment.ts), or, once its merchant has been read, its
 *   insert alone (below), and
 * - the operation job: its read of the operation and the application of its answer
 *   (`outcomeStatements`, apply-outcome.ts), the one form every processor answer takes.
 *
 * The job queue's delete of finished jobs (jobs/queue.ts), the sandbox simulator's record of an
 * operation without a fault (processor/sandbox-simulator.ts) and the transaction details read
 * (payment-details/transaction-details.ts, a read with its own benchmark) share their statements the same way.
 *
 * A shared statement is atomic, and when it fails each of its calls runs again alone, so one bad row
 * fails only its own call. The rows travel as one JSON parameter, so one query text serves every
 * batch size, and the keys travel again as an array (`= any($1)`), so PostgreSQL finds the rows by
 * primary key whatever it guesses of the JSON's size.
 */
/**
 * sendPayment's read and insert (send-payment.ts), one set per database handle.
 *
 * A payment needs two round trips when its context is read first: under load each request waits for
 * two shared statements, and with a fixed number of clients that wait is what bounds the payments
 * accepted (docs/performance.md, "tenth session"). So each handle remembers, per merchant, the facts the
 * read found (contract, clock, fee plan), and a request whose merchant it knows is priced on them and
 * on its card being an ACTIVE card of its person, then stored by one statement that checks all of it
 * (createPaymentsIfCurrent). Where the check fails nothing is written, and the request reads its
 * context and runs as it would have; where it holds, the payment is the one the read would have made.
 */
export const sendPaymentStatements = onePer((db: Db) => {
  const merchants = new BoundedMap<string, AssumedContext>(1024);
  return {
    /** Reads what the sendPayment requests of one turn need before pricing (loadPaymentContexts), and remembers each merchant's facts. */
    loadContext: batchCalls(async (keys: readonly ContextKey[]) => {
      const contexts = await loadPaymentContexts(db, keys);
      contexts.forEach((context, n) => merchants.set((keys[n] as ContextKey).merchantId, context.merchant));
      return contexts;
    }),
    /** Stores the payments of one turn (createPayments, payments/create-payment.ts). */
    insert: batchCalls((inputs: readonly NewPayment[]) => createPayments(db, inputs)),
    /**
     * The context a request would read if its merchant's facts and its card are as last seen; undefined
     * when this handle has not read the merchant (or the ids cannot name a row), and the request reads.
     */
    assumedContext(key: Omit<ContextKey, 'idempotencyKey'>): PaymentContext | undefined {
      const merchant = merchants.get(key.merchantId);
      if (!merchant || !isUuid(key.personId) || !isUuid(key.cardId)) return undefined;
      return {
        merchant,
        feePlan: merchant.plan ?? DEFAULT_FEE_PLAN,
        person: { id: key.personId },
        card: { id: key.cardId, person_id: key.personId, status: 'ACTIVE' },
        existingToken: null,
      };
    },
    /** Stores the payments of one turn priced on an assumed context, each only where it still holds (createPaymentsIfCurrent); null for the others. */
    insertIfCurrent: batchCalls((items: readonly { payment: NewPayment; assumed: AssumedContext }[]) => createPaymentsIfCurrent(db, items)),
  };
});

export interface ContextKey {
  merchantId: string;
  personId: string;
  cardId: string;
  idempotencyKey: string | null;
}

/** What sendPayment reads before pricing a payment. */
export interface PaymentContext {
  /** The merchant's contract, clock and fee plan as read, which a later request may assume (sendPaymentStatements). */
  merchant: AssumedContext;
  /** The fee plan that applies: the merchant's own, or the default. */
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
    from json_to_recordset(${jsonParameter(wanted)}::json) as k(n integer, merchant_id uuid, person_id uuid, card_id uuid, idempotency_key text)
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
      merchant: { contractId: row.contract_id, clockOffsetMs: row.clock_offset_ms, plan: row.plan },
      feePlan: row.plan ?? DEFAULT_FEE_PLAN,
      person: row.person_id ? { id: row.person_id } : undefined,
      card: row.card_id && row.card_person_id && row.card_status ? { id: row.card_id, person_id: row.card_person_id, status: row.card_status } : undefined,
      existingToken: row.existing_token,
    };
  });
}
