import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { DisputeFilesTable, DisputesTable } from '../db/tables/disputes';
import { recordEvent } from '../events/outbox';
import { disputeFeeMinor, loadFeePlan } from '../fees/fee-plan';
import { ApiError } from '../http/errors';
import { postJournal, postJournals } from '../ledger/ledger';
import { exponentOf } from '../lib/currencies';
import { formatAmount, toJsonNumber } from '../lib/money';
import { assertMove, canMove, movedMeanwhile, stampOf } from '../lib/state-machine';
import { formatDateTime } from '../lib/time-format';
import { isUuid } from '../lib/identifiers';
import type { PaymentRow } from '../payments/payment-record';
import { closeJournal, feeJournal, holdJournal } from './dispute-money';
import { EVIDENCE_TEXT_FIELDS } from './evidence-fields';
import { DISPUTE_STATES, holdsMoney, type DisputeProcessor, type DisputeReasonCategory, type DisputeStage, type DisputeStatus } from './states';

export type DisputeRow = Selectable<DisputesTable>;
export type DisputeFileRow = Selectable<DisputeFilesTable>;

/** A dispute to open, as its reporter describes it. */
export interface NewDispute {
  readonly processor: DisputeProcessor;
  /** The reporter's id of the dispute; the sandbox's is the dispute's own id. */
  readonly processorReference?: string | undefined;
  readonly amountMinor: bigint;
  readonly reasonCode: string;
  readonly reasonCategory: DisputeReasonCategory;
  readonly reasonDescription?: string | null | undefined;
  readonly stage: DisputeStage;
  readonly evidenceDueBy: Date | null;
  /** MED: the refund the devolução is recorded as. */
  readonly refundId?: bigint | undefined;
  /**
   * MED: the dispute is a return the processor made already, which it bounded by what it had not yet
   * returned, so refunds still in flight at Colibri do not count against it (one the processor
   * accepted fits beside it; one it did not will fail there).
   */
  readonly returned?: boolean | undefined;
}

/**
 * How much of a payment can still be disputed: what the customer paid (captured plus customer fees),
 * less what was refunded or is being refunded, less what other disputes hold or took (a won dispute
 * gives its amount back; a MED dispute's amount is counted as the refund it is recorded as). With
 * `refunding: false`, refunds still in flight are not counted (a MED: NewDispute `returned`).
 * @example await disputableMinor(trx, payment) // 10000n for a paid R$ 100,00 payment with no refund
 */
export async function disputableMinor(db: Db, payment: Pick<PaymentRow, 'payment_token' | 'captured_minor' | 'customer_fees_minor' | 'refunded_minor'>, options: { refunding?: boolean } = {}): Promise<bigint> {
  const { rows } = await sql<{ refunding: string; disputed: string }>`
    select
      (select coalesce(sum(amount_minor), 0) from refunds where payment_token = ${payment.payment_token} and status in ('REQUESTED', 'PROCESSING'))::text as refunding,
      (select coalesce(sum(amount_minor), 0) from disputes where payment_token = ${payment.payment_token} and status <> 'WON' and refund_id is null)::text as disputed`.execute(db);
  const [row] = rows;
  const paid = payment.captured_minor + payment.customer_fees_minor;
  const refunding = options.refunding === false ? 0n : BigInt(row?.refunding ?? '0');
  return paid - payment.refunded_minor - refunding - BigInt(row?.disputed ?? '0');
}

/**
 * Opens a dispute on a payment the caller has locked (lockPayment), in its transaction: checks the
 * amount against what can still be disputed, writes the dispute NEEDS_RESPONSE, holds the money if its
 * stage takes it (a chargeback), and records its `dispute.status_changed` event.
 * @example const dispute = await openDispute(trx, payment, { processor: 'sandbox', amountMinor: 10000n, reasonCode: '10.4', reasonCategory: 'FRAUD', stage: 'CHARGEBACK', evidenceDueBy }, now);
 */
export async function openDispute(trx: Db, payment: PaymentRow, input: NewDispute, at: Date): Promise<DisputeRow> {
  const room = await disputableMinor(trx, payment, { refunding: !input.returned });
  if (input.amountMinor <= 0n || input.amountMinor > room) {
    const left = formatAmount(room > 0n ? room : 0n, exponentOf(payment.currency));
    throw new ApiError('DISPUTE_AMOUNT_EXCEEDS_DISPUTABLE', `amount: the payment has ${left} ${payment.currency} that can still be disputed (captured less refunded and already disputed).`);
  }
  const disputeId = randomUUID();
  const opened = await trx
    .insertInto('disputes')
    .values({
      dispute_id: disputeId,
      merchant_id: payment.merchant_id,
      payment_token: payment.payment_token,
      reference_id: payment.reference_id,
      processor: input.processor,
      processor_reference: input.processorReference ?? disputeId,
      amount_minor: input.amountMinor,
      currency: payment.currency,
      fee_minor: 0n,
      held_minor: 0n,
      reason_code: input.reasonCode,
      reason_category: input.reasonCategory,
      reason_description: input.reasonDescription ?? null,
      stage: input.stage,
      status: 'NEEDS_RESPONSE',
      evidence_due_by: input.evidenceDueBy,
      refund_id: input.refundId ?? null,
      notification_url: payment.notification_url,
      warned_at: null,
      created_at: at,
      updated_at: at,
      submitted_at: null,
      won_at: null,
      lost_at: null,
      accepted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const dispute = holdsMoney(input.stage) ? await holdMoney(trx, opened, at) : opened;
  await announce(trx, dispute);
  return dispute;
}

/**
 * Takes a dispute to a later stage (an inquiry becomes a chargeback, a chargeback goes to
 * pre-arbitration): money is held from the first stage that takes it, and a dispute under review needs
 * a response again, with the new deadline. Records the event.
 * @example await escalateDispute(trx, dispute, 'CHARGEBACK', now, { evidenceDueBy });
 */
export async function escalateDispute(trx: Db, dispute: DisputeRow, stage: DisputeStage, at: Date, options: { evidenceDueBy: Date | null }): Promise<DisputeRow> {
  let moved = await trx
    .updateTable('disputes')
    .set({ stage, evidence_due_by: options.evidenceDueBy ?? dispute.evidence_due_by, warned_at: null, updated_at: at })
    .where('dispute_id', '=', dispute.dispute_id)
    .where('merchant_id', '=', dispute.merchant_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (holdsMoney(stage) && moved.held_minor === 0n) moved = await holdMoney(trx, moved, at);
  if (moved.status === 'UNDER_REVIEW') return changeDisputeStatus(trx, moved, 'NEEDS_RESPONSE', at);
  await announce(trx, moved);
  return moved;
}

/** Holds the disputed amount and charges the dispute fee (once per dispute; none for MED, which is no card scheme's). */
async function holdMoney(trx: Db, dispute: DisputeRow, at: Date): Promise<DisputeRow> {
  const fee = dispute.fee_minor > 0n || dispute.processor === 'pix' ? 0n : disputeFeeMinor(await loadFeePlan(trx, dispute.merchant_id));
  await postJournals(trx, [holdJournal(dispute, dispute.amount_minor, at), ...(fee > 0n ? [feeJournal(dispute, fee, at)] : [])]);
  return trx
    .updateTable('disputes')
    .set((eb) => ({ held_minor: dispute.amount_minor, fee_minor: eb('fee_minor', '+', fee) }))
    .where('dispute_id', '=', dispute.dispute_id)
    .where('merchant_id', '=', dispute.merchant_id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a dispute in the caller's transaction: checked against DISPUTE_STATES, written where its status
 * still allows the move, with its status's timestamp, the close's journal (WON gives the held money back,
 * LOST and ACCEPTED leave it with the processor) and its event. IllegalMoveError (409) otherwise.
 * @example await changeDisputeStatus(trx, dispute, 'UNDER_REVIEW', now);
 */
export async function changeDisputeStatus(trx: Db, dispute: DisputeRow, status: DisputeStatus, at: Date): Promise<DisputeRow> {
  assertMove(DISPUTE_STATES, dispute.status, status);
  // The row as it is now, locked: the close moves what the dispute holds now, never a stale copy's.
  const current = await trx.selectFrom('disputes').selectAll().where('dispute_id', '=', dispute.dispute_id).where('merchant_id', '=', dispute.merchant_id).forUpdate().executeTakeFirstOrThrow();
  if (!canMove(DISPUTE_STATES, current.status, status)) throw movedMeanwhile(DISPUTE_STATES, dispute.status, status);
  const closes = status === 'WON' || status === 'LOST' || status === 'ACCEPTED';
  const updated = await trx
    .updateTable('disputes')
    .set({ status, updated_at: at, ...(closes ? { held_minor: 0n } : {}), ...stampOf(DISPUTE_STATES, status, at, current) })
    .where('dispute_id', '=', dispute.dispute_id)
    .where('merchant_id', '=', dispute.merchant_id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const journal = closes ? closeJournal(current, status, at) : null;
  if (journal) await postJournal(trx, journal);
  await announce(trx, updated);
  return updated;
}

/**
 * Records the dispute's `dispute.status_changed` event for its current status. `reminder` marks the
 * warning sent 48 hours before the deadline (the status is unchanged; docs/disputes.md, "Callbacks").
 */
export async function announce(trx: Db, dispute: DisputeRow, reminder?: 'EVIDENCE_DUE_SOON'): Promise<void> {
  await recordEvent(trx, {
    merchantId: dispute.merchant_id,
    type: 'dispute.status_changed',
    resourceType: 'dispute',
    resourceId: dispute.dispute_id,
    data: { ...disputeEventData(dispute), ...(reminder ? { reminder } : {}) },
    notificationUrls: [dispute.notification_url],
  });
}

/** A dispute's callback data (docs/callbacks.md): the contract's fields, then what a receiver acts on. */
export function disputeEventData(dispute: DisputeRow): Record<string, unknown> {
  return {
    dispute_id: dispute.dispute_id,
    payment_token: dispute.payment_token,
    reference_id: dispute.reference_id,
    status: dispute.status,
    stage: dispute.stage,
    reason_category: dispute.reason_category,
    amount: toJsonNumber(dispute.amount_minor, exponentOf(dispute.currency)),
    asset: dispute.currency,
    evidence_due_by: dispute.evidence_due_by ? formatDateTime(dispute.evidence_due_by) : null,
  };
}

/** A dispute as the API shows it (CONTRACTS.md, Disputes; docs/disputes.md). */
export function disputeView(dispute: DisputeRow, files: readonly DisputeFileRow[]) {
  const exponent = exponentOf(dispute.currency);
  const time = (at: Date | null) => (at ? formatDateTime(at) : null);
  const text = dispute.evidence as Record<string, string | undefined>;
  return {
    dispute_id: dispute.dispute_id,
    payment_token: dispute.payment_token,
    reference_id: dispute.reference_id,
    status: dispute.status as DisputeStatus,
    reason_code: dispute.reason_code,
    reason_category: dispute.reason_category as DisputeReasonCategory,
    reason_description: dispute.reason_description,
    stage: dispute.stage as DisputeStage,
    amount: toJsonNumber(dispute.amount_minor, exponent),
    asset: dispute.currency,
    fee: toJsonNumber(dispute.fee_minor, exponent),
    processor: dispute.processor as DisputeProcessor,
    evidence_due_by: time(dispute.evidence_due_by),
    created_at: formatDateTime(dispute.created_at),
    submitted_at: time(dispute.submitted_at),
    won_at: time(dispute.won_at),
    lost_at: time(dispute.lost_at),
    accepted_at: time(dispute.accepted_at),
    evidence: {
      ...Object.fromEntries(EVIDENCE_TEXT_FIELDS.map((field) => [field, text[field] ?? null])),
      files: files.map((f) => ({ file_id: f.file_id, kind: f.kind, filename: f.filename, content_type: f.content_type, size: Number(f.size_bytes), created_at: formatDateTime(f.created_at) })),
    },
  };
}

export type DisputeView = ReturnType<typeof disputeView>;

/**
 * Refuses evidence and responses once the dispute no longer waits for one (DISPUTE_RESPONSE_CLOSED).
 * @example assertWaiting(dispute, 'evidence can be added');
 */
export function assertWaiting(dispute: DisputeRow, doing: string): void {
  if (dispute.status !== 'NEEDS_RESPONSE') {
    throw new ApiError('DISPUTE_RESPONSE_CLOSED', `status: the dispute is ${dispute.status}; ${doing} only while it is NEEDS_RESPONSE.`);
  }
}

/**
 * One of the merchant's disputes, with its files, or DISPUTE_NOT_FOUND (another merchant's too). With
 * `forUpdate`, the dispute row is locked for the caller's transaction.
 * @example const { dispute, files } = await loadDispute(db, merchantId, disputeId);
 */
export async function loadDispute(db: Db, merchantId: string, disputeId: string, options: { forUpdate?: boolean } = {}): Promise<{ dispute: DisputeRow; files: DisputeFileRow[] }> {
  if (!isUuid(disputeId)) throw new ApiError('DISPUTE_NOT_FOUND', 'dispute_id: no dispute of this merchant has this id.');
  let query = db.selectFrom('disputes').selectAll().where('merchant_id', '=', merchantId).where('dispute_id', '=', disputeId);
  if (options.forUpdate) query = query.forUpdate();
  const dispute = await query.executeTakeFirst();
  if (!dispute) throw new ApiError('DISPUTE_NOT_FOUND', 'dispute_id: no dispute of this merchant has this id.');
  const files = await db.selectFrom('dispute_files').selectAll().where('merchant_id', '=', merchantId).where('dispute_id', '=', disputeId).orderBy('created_at').orderBy('file_id').execute();
  return { dispute, files };
}
