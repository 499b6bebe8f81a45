import type { Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { PaymentOperationsTable } from '../db/tables/payments';
import { enqueueMany, type NewJob } from '../jobs/queue';
import { PROCESS_PAYMENT_JOB, type JobAuthentication, type ProcessPaymentJob } from './payment-job';
import type { PaymentRow } from './payment-record';
import type { OperationKind, OperationStatus } from './states';
import { timeOrderedId } from '../lib/identifiers';

/**
 * Money in flight, as records (docs/architecture.md, "Money in flight"). Every processor operation on
 * a card payment (authorise, capture, cancel) is a row of `payment_operations` with its own status
 * (payments/states.ts OPERATION_STATES), its amount, Colibri's reference for the processor, the
 * processor's answer and a time per final status. It is written with its job, in the transaction that
 * asks for it, and at most one is REQUESTED per payment: asking for one moves the payment to PROCESSING
 * under its row lock (capture.ts, cancel.ts, create-payment.ts), and only an answer moves it out, so
 * the payment's PROCESSING always names one operation. The job names the operation, and settling it is guarded on the
 * operation (apply-outcome.ts): a job that runs again after its operation is final changes nothing.
 * The job's unique key is the operation's processor reference, which is how a connector's notification
 * about that reference finds the job waiting on it (connectors/operations.ts wakeWaitingJob).
 */

export type OperationRow = Selectable<PaymentOperationsTable> & { kind: OperationKind; status: OperationStatus };

/** What a request asks the processor to do. */
export interface NewOperation {
  payment: Pick<PaymentRow, 'payment_token' | 'merchant_id'>;
  kind: OperationKind;
  /** What the processor is asked to move (an authorisation: what the customer pays). */
  amountMinor: bigint;
  at: Date;
  /** A cancel's cause. */
  reason?: 'REQUESTED' | 'TTL' | undefined;
  /** The Idempotency-Key of the request, kept so its retry after a crash finds this operation. */
  idempotencyKey?: string | null | undefined;
  /** An authorisation's 3DS facts, for the job only. */
  authentication?: JobAuthentication | undefined;
}

/**
 * Colibri's reference for the processor: its idempotency key there, so an attempt repeated after a
 * timeout or a crash is the same operation. One authorisation per payment; captures and cancels may
 * be asked again after a refusal, so theirs carry the operation's id.
 * @example operationReference('capture', token, operationId) // '<token>:capture:<operationId>'
 */
export function operationReference(kind: OperationKind, paymentToken: string, operationId: string): string {
  return kind === 'authorize' ? `${paymentToken}:authorize` : `${paymentToken}:${kind}:${operationId}`;
}

/**
 * An operation's row and its job, computed once for the plain insert below and for the shared insert of
 * sendPayment (create-payment.ts createPayments).
 */
export function describeOperation(input: NewOperation) {
  const id = timeOrderedId();
  const row = {
    id,
    payment_token: input.payment.payment_token,
    merchant_id: input.payment.merchant_id,
    kind: input.kind,
    amount_minor: input.amountMinor,
    reference: operationReference(input.kind, input.payment.payment_token, id),
    reason: input.reason ?? null,
    idempotency_key: input.idempotencyKey ?? null,
    requested_at: input.at,
  };
  const payload: ProcessPaymentJob = { operationId: id, merchantId: input.payment.merchant_id, authentication: input.authentication };
  const job: NewJob & { resourceId: string } = { resourceId: input.payment.payment_token, kind: PROCESS_PAYMENT_JOB, payload, options: { uniqueKey: row.reference } };
  return { row, job };
}

/**
 * Asks for an operation in the caller's transaction: its row and its job. The caller holds the
 * payment's row lock and has moved it to PROCESSING; it pokes the worker after committing.
 * @example await requestOperation(trx, { payment, kind: 'capture', amountMinor: 1250n, at: now, idempotencyKey });
 */
export async function requestOperation(db: Db, input: NewOperation): Promise<OperationRow> {
  const { row, job } = describeOperation(input);
  const stored = await db.insertInto('payment_operations').values(row).returningAll().executeTakeFirstOrThrow();
  await enqueueMany(db, [job]);
  return stored as OperationRow;
}

/**
 * The operation an earlier request with this Idempotency-Key asked for, if any: a capture or cancel
 * retried after a crash answers from it instead of being refused by the status it left behind.
 * @example const earlier = await keyedOperation(trx, merchantId, 'capture', key);
 */
export async function keyedOperation(db: Db, merchantId: string, kind: OperationKind, idempotencyKey: string): Promise<OperationRow | undefined> {
  const row = await db
    .selectFrom('payment_operations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', kind)
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
  return row as OperationRow | undefined;
}
