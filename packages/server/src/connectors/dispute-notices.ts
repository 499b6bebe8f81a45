import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database';
import { enqueue } from '../jobs/queue';

/**
 * Where a dispute is in the card networks' process. An inquiry (a retrieval request, Adyen's request for
 * information or notice of chargeback) asks for documents and moves no money; a chargeback takes the
 * money back from the merchant; a second chargeback or pre-arbitration is the issuer's answer to a defence.
 */
export const DISPUTE_STAGES = ['INQUIRY', 'CHARGEBACK', 'SECOND_CHARGEBACK', 'PRE_ARBITRATION'] as const;
export type DisputeStage = (typeof DISPUTE_STAGES)[number];

/** The reason categories a network's reason code is translated into (docs/disputes.md, "Reasons"). */
export const DISPUTE_REASON_CATEGORIES = ['FRAUD', 'NOT_RECEIVED', 'NOT_AS_DESCRIBED', 'DUPLICATE', 'CREDIT_NOT_PROCESSED', 'GENERAL'] as const;
export type DisputeReasonCategory = (typeof DISPUTE_REASON_CATEGORIES)[number];

/** Who reports disputes: the sandbox's simulated acquirer, Adyen, or the Banco Central's MED through a PIX PSP. */
export const DISPUTE_PROCESSORS = ['sandbox', 'adyen', 'pix'] as const;
export type DisputeProcessor = (typeof DISPUTE_PROCESSORS)[number];

/**
 * What a processor said about a dispute, in Colibri's words: a connector translates its provider's
 * message into one of these (Adyen's chargeback notifications, a MED devolução found on a received Pix)
 * and nothing of the provider passes it. The disputes domain applies it (disputes/apply-notices.ts):
 * - OPENED: the dispute exists at `stage` (opened, or taken to a later stage: money is held from a
 *   chargeback on);
 * - WON / LOST: the processor decided (a notice of a dispute Colibri has not seen opens it first);
 * - DEFENDED: the provider has a defence that did not go through Colibri (sent in the provider's own
 *   dashboard, or made by the provider itself): a dispute waiting for a response is UNDER_REVIEW;
 * - DEFENSE_PERIOD_ENDED: no defence can be sent any more; one still waiting for a response is LOST.
 */
export interface DisputeNotice {
  readonly processor: Exclude<DisputeProcessor, 'sandbox'>;
  readonly merchantId: string;
  /** The provider's own key of the message, so a message delivered twice is kept once. */
  readonly noticeKey: string;
  /** The provider's id of the dispute (Adyen's dispute pspReference, the MED devolução's id). */
  readonly processorReference: string;
  readonly paymentToken: string;
  readonly kind: 'OPENED' | 'WON' | 'LOST' | 'DEFENDED' | 'DEFENSE_PERIOD_ENDED';
  readonly stage: DisputeStage;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly reasonCode: string;
  readonly reasonCategory: DisputeReasonCategory;
  readonly reasonDescription?: string | null | undefined;
  readonly evidenceDueBy: Date | null;
  /** When the provider says it happened: notices are applied in this order. */
  readonly occurredAt: Date;
  /** A MED devolução: the refund it represents (its id and when it was paid back). */
  readonly refund?: { readonly id: string; readonly at: Date } | undefined;
}

/** The job that applies a processor's dispute notices (disputes/apply-notices.ts). */
export const DISPUTE_NOTICE_JOB = 'dispute.notice';

export interface DisputeNoticeJob {
  readonly noticeId: string;
  readonly merchantId: string;
}

/**
 * Keeps a processor's notice in the caller's transaction and enqueues the job that applies it. A
 * notice whose key is kept already (a delivery repeated) writes nothing: answers false.
 * @example await recordDisputeNotice(trx, { processor: 'adyen', noticeKey: `${psp}:CHARGEBACK:true`, kind: 'OPENED', stage: 'CHARGEBACK', … })
 */
export async function recordDisputeNotice(trx: Db, notice: DisputeNotice): Promise<boolean> {
  const id = randomUUID();
  const inserted = await trx
    .insertInto('dispute_notices')
    .values({
      id,
      merchant_id: notice.merchantId,
      processor: notice.processor,
      notice_key: notice.noticeKey,
      processor_reference: notice.processorReference,
      payment_token: notice.paymentToken,
      kind: notice.kind,
      stage: notice.stage,
      amount_minor: notice.amountMinor,
      currency: notice.currency,
      reason_code: notice.reasonCode,
      reason_description: notice.reasonDescription ?? null,
      evidence_due_by: notice.evidenceDueBy,
      occurred_at: notice.occurredAt,
      details: JSON.stringify({ reason_category: notice.reasonCategory, ...(notice.refund ? { refund: { id: notice.refund.id, at: notice.refund.at.toISOString() } } : {}) }),
      applied_at: null,
      outcome: null,
    })
    .onConflict((oc) => oc.columns(['processor', 'notice_key', 'merchant_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  const job: DisputeNoticeJob = { noticeId: id, merchantId: notice.merchantId };
  await enqueue(trx, DISPUTE_NOTICE_JOB, job, { uniqueKey: `${DISPUTE_NOTICE_JOB}:${id}` });
  return true;
}

/** The file of a defence, read from Colibri's store when the connector sends it. */
export interface DefenceFile {
  readonly fileId: string;
  readonly kind: string;
  readonly filename: string;
  readonly contentType: string;
  content(): Promise<Buffer>;
}

/** A merchant's defence of a dispute, as a connector sends it to its provider. */
export interface DisputeDefence {
  readonly merchantId: string;
  readonly disputeId: string;
  readonly processorReference: string;
  readonly paymentToken: string;
  readonly reasonCode: string;
  readonly reasonCategory: DisputeReasonCategory;
  readonly evidence: Readonly<Record<string, string>>;
  readonly files: readonly DefenceFile[];
}

/**
 * What a connector whose provider reports disputes can do about them. `defend` sends the evidence and
 * asks for the defence; `accept` concedes. Both throw ProcessorUnavailableError when the provider
 * cannot be reached, and DisputeRefusedError when it refuses (its reason in the message).
 */
export interface DisputeActions {
  defend(defence: DisputeDefence): Promise<void>;
  accept(input: { readonly merchantId: string; readonly processorReference: string }): Promise<void>;
}

/** The provider refused a defence or an acceptance; the message is its reason, in Colibri's words. */
export class DisputeRefusedError extends Error {
  override name = 'DisputeRefusedError';
}
