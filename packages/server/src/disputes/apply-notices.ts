import { sql, type Selectable } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { DisputeNoticeJob, DisputeReasonCategory, DisputeStage } from '../connectors/dispute-notices';
import type { Db } from '../db/database';
import type { DisputeNoticesTable } from '../db/tables/disputes';
import { ApiError } from '../http/errors';
import type { Job, JobKind } from '../jobs/queue';
import { lockPayment, type PaymentRow } from '../payments/payment-record';
import { recordProcessorRefund } from '../refunds/refund-record';
import { changeDisputeStatus, escalateDispute, openDispute, type DisputeRow } from './dispute-record';
import { OPEN_DISPUTE_STATUSES, stageRank, type DisputeProcessor } from './states';

type NoticeRow = Selectable<DisputeNoticesTable>;
/** A notice's `details` (connectors/dispute-notices.ts recordDisputeNotice). */
type NoticeDetails = { reason_category?: DisputeReasonCategory; refund?: { id: string; at: string } };

/**
 * Applies the dispute notices a connector kept (connectors/dispute-notices.ts), run by the job worker.
 * Under the payment's row lock, every notice of the same dispute not yet applied is applied in the order
 * the provider dated them, and marked applied with what it did, in one transaction: a notice applies
 * once, whichever of its dispute's jobs gets there first, and a dispute only moves forward, so messages
 * that arrive late or twice change nothing (docs/disputes.md, "Adyen" and "MED").
 */
export function disputeNoticeJob(ctx: AppContext): JobKind {
  return {
    run: async (job: Job<DisputeNoticeJob>) => {
      const { noticeId, merchantId } = job.payload;
      const notice = await ctx.db.selectFrom('dispute_notices').selectAll().where('merchant_id', '=', merchantId).where('id', '=', noticeId).executeTakeFirst();
      if (!notice || notice.applied_at) return;
      const now = await merchantNow(ctx.db, merchantId);
      await ctx.db.transaction().execute(async (trx) => {
        const payment = await lockPayment(trx, merchantId, notice.payment_token);
        const pending = await trx
          .selectFrom('dispute_notices')
          .selectAll()
          .where('merchant_id', '=', merchantId)
          .where('processor', '=', notice.processor)
          .where('processor_reference', '=', notice.processor_reference)
          .where('applied_at', 'is', null)
          .orderBy('occurred_at')
          .orderBy('received_at')
          .forUpdate()
          .execute();
        for (const each of pending) {
          const outcome = payment ? await applyNotice(trx, payment, each, now) : 'ignored: no such payment';
          await trx.updateTable('dispute_notices').set({ applied_at: now, outcome }).where('merchant_id', '=', merchantId).where('id', '=', each.id).execute();
        }
      });
      ctx.workerSignal.poke();
    },
  };
}

/** Applies one notice; answers what it did, kept with the notice. */
async function applyNotice(trx: Db, payment: PaymentRow, notice: NoticeRow, at: Date): Promise<string> {
  const stage = notice.stage as DisputeStage;
  let dispute = await latestDispute(trx, notice);
  const later = (d: DisputeRow) => stageRank(stage) > stageRank(d.stage);
  const closed = (d: DisputeRow) => !OPEN_DISPUTE_STATUSES.includes(d.status as never);
  // A notice of a round Colibri has not seen opens it: the first, or the next after a closed one.
  const open = async (): Promise<DisputeRow | string> => {
    try {
      const round = dispute ? `${notice.processor_reference}#${stage}` : notice.processor_reference;
      return await openDispute(trx, payment, fromNotice(notice, round), at);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Kept on the notice (its outcome) for the operator: the processor took money Colibri cannot place.
      return `refused: ${error.message}`;
    }
  };
  switch (notice.kind) {
    case 'OPENED': {
      if (!dispute || (closed(dispute) && later(dispute))) {
        const opened = await open();
        return typeof opened === 'string' ? opened : `opened ${opened.dispute_id}`;
      }
      if (closed(dispute)) return `ignored: ${dispute.dispute_id} is ${dispute.status}`;
      if (!later(dispute)) return `ignored: ${dispute.dispute_id} is at ${dispute.stage} already`;
      await escalateDispute(trx, dispute, stage, at, { evidenceDueBy: notice.evidence_due_by });
      return `moved ${dispute.dispute_id} to ${stage}`;
    }
    case 'WON':
    case 'LOST': {
      if (!dispute || (closed(dispute) && later(dispute))) {
        const opened = await open();
        if (typeof opened === 'string') return opened;
        dispute = opened;
        const refund = (notice.details as NoticeDetails).refund;
        if (refund && notice.kind === 'LOST') dispute = await recordReturn(trx, dispute, refund, at);
      }
      if (closed(dispute)) return `ignored: ${dispute.dispute_id} is ${dispute.status}`;
      await changeDisputeStatus(trx, dispute, notice.kind, at);
      return `${dispute.dispute_id} ${notice.kind}${dispute.refund_id === null ? '' : ` as refund ${dispute.refund_id}`}`;
    }
    case 'DEFENDED': {
      if (!dispute || dispute.status !== 'NEEDS_RESPONSE') return 'ignored: no dispute waits for a response';
      await changeDisputeStatus(trx, dispute, 'UNDER_REVIEW', at);
      return `${dispute.dispute_id} UNDER_REVIEW: defended at the processor`;
    }
    case 'DEFENSE_PERIOD_ENDED': {
      if (!dispute || dispute.status !== 'NEEDS_RESPONSE') return 'ignored: no dispute waits for a response';
      await changeDisputeStatus(trx, dispute, 'LOST', at);
      return `${dispute.dispute_id} LOST: no defence before the period ended`;
    }
    default:
      return `ignored: unknown kind ${notice.kind}`;
  }
}

/**
 * A MED devolução, just opened as a dispute: the refund it is, recorded COMPLETED with the payment's
 * refunded amount and status (refunds/refund-record.ts), and named on the dispute, so that refunds and
 * later disputes count it once. Its money moves with the dispute's journals only (held, then lost to
 * the processor: what Colibri owes the merchant and what the PSP owes Colibri both fall by the amount),
 * so the refund posts none. Opened first, because the dispute's amount must fit in what the payment
 * still holds, before the refund takes it.
 */
async function recordReturn(trx: Db, dispute: DisputeRow, refund: { id: string; at: string }, at: Date): Promise<DisputeRow> {
  const payment = await lockPayment(trx, dispute.merchant_id, dispute.payment_token);
  if (!payment) return dispute;
  const recorded = await recordProcessorRefund(trx, payment, { amountMinor: dispute.amount_minor, processorId: refund.id, completedAt: new Date(refund.at) }, at);
  return trx
    .updateTable('disputes')
    .set({ refund_id: recorded.refund_id, updated_at: at })
    .where('dispute_id', '=', dispute.dispute_id)
    .where('merchant_id', '=', dispute.merchant_id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The latest round of the notice's dispute: its first one, or a later one opened after it closed. */
async function latestDispute(trx: Db, notice: NoticeRow): Promise<DisputeRow | undefined> {
  return trx
    .selectFrom('disputes')
    .selectAll()
    .where('merchant_id', '=', notice.merchant_id)
    .where('processor', '=', notice.processor)
    .where((eb) => eb.or([eb('processor_reference', '=', notice.processor_reference), eb('processor_reference', 'like', sql<string>`${notice.processor_reference} || '#%'`)]))
    .orderBy('created_at', 'desc')
    .orderBy('dispute_id')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

function fromNotice(notice: NoticeRow, processorReference: string) {
  const details = notice.details as NoticeDetails;
  return {
    processor: notice.processor as DisputeProcessor,
    processorReference,
    amountMinor: notice.amount_minor,
    reasonCode: notice.reason_code,
    reasonCategory: details.reason_category ?? 'GENERAL',
    reasonDescription: notice.reason_description,
    stage: notice.stage as DisputeStage,
    evidenceDueBy: notice.evidence_due_by,
    returned: details.refund !== undefined,
  };
}
