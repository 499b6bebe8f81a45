import type { AppContext } from '../context';
import { merchantNow } from '../clock/merchant-clock';
import { DisputeRefusedError, type DisputeActions } from '../connectors/dispute-notices';
import { ApiError } from '../http/errors';
import type { PaymentMethodName } from '../processor/processor';
import { ProcessorTimeoutError, ProcessorUnavailableError } from '../processor/processor';
import { assertWaiting, changeDisputeStatus, loadDispute, type DisputeRow, type DisputeView, disputeView } from './dispute-record';
import { EVIDENCE_TEXT_FIELDS, type EvidenceTextField } from './evidence-fields';
import { fileContent } from './evidence-files';

/**
 * The merchant's side of a dispute (docs/disputes.md): evidence while it NEEDS_RESPONSE, then submit
 * (UNDER_REVIEW) or accept (ACCEPTED). A dispute reported by a provider is defended or conceded there
 * first, outside any transaction; only its answer moves the dispute, so a provider that refuses or
 * cannot be reached leaves it as it was.
 */

/**
 * Sets evidence text fields (a field sent replaces the one kept; an empty string removes it).
 * @example await addEvidenceText(ctx, merchantId, disputeId, { shipping_carrier: 'Correios', shipping_tracking_number: 'AA123456789BR' })
 */
export async function addEvidenceText(ctx: AppContext, merchantId: string, disputeId: string, fields: Partial<Record<EvidenceTextField, string>>): Promise<DisputeView> {
  const now = await merchantNow(ctx.db, merchantId);
  return ctx.db.transaction().execute(async (trx) => {
    const { dispute, files } = await loadDispute(trx, merchantId, disputeId, { forUpdate: true });
    assertWaiting(dispute, 'evidence can be added');
    const evidence: Record<string, string> = { ...(dispute.evidence as Record<string, string>) };
    for (const field of EVIDENCE_TEXT_FIELDS) {
      const value = fields[field];
      if (value === undefined) continue;
      if (value.trim() === '') delete evidence[field];
      else evidence[field] = value;
    }
    const updated = await trx
      .updateTable('disputes')
      .set({ evidence: JSON.stringify(evidence), updated_at: now })
      .where('dispute_id', '=', dispute.dispute_id)
      .where('merchant_id', '=', merchantId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return disputeView(updated, files);
  });
}

/**
 * Submits the evidence: the provider's defence is asked for (none for the sandbox), then the dispute is
 * UNDER_REVIEW. Submitting is final: no evidence can be added afterwards.
 * @example const view = await submitDispute(ctx, merchantId, disputeId);
 */
export async function submitDispute(ctx: AppContext, merchantId: string, disputeId: string): Promise<DisputeView> {
  const { dispute, files } = await loadDispute(ctx.db, merchantId, disputeId);
  assertWaiting(dispute, 'evidence can be submitted');
  if (files.length === 0 && Object.keys(dispute.evidence as object).length === 0) {
    throw new ApiError('DISPUTE_EVIDENCE_REQUIRED', 'evidence: add at least one file or text field before submitting.');
  }
  const actions = await providerActions(ctx, dispute);
  if (actions) {
    await askProvider(() =>
      actions.defend({
        merchantId,
        disputeId,
        processorReference: dispute.processor_reference,
        paymentToken: dispute.payment_token,
        reasonCode: dispute.reason_code,
        reasonCategory: dispute.reason_category as never,
        evidence: dispute.evidence as Record<string, string>,
        files: files.map((f) => ({ fileId: f.file_id, kind: f.kind, filename: f.filename, contentType: f.content_type, content: () => fileContent(ctx.db, merchantId, f.file_id) })),
      }),
    );
  }
  return move(ctx, merchantId, disputeId, 'UNDER_REVIEW');
}

/**
 * Accepts the dispute: the merchant does not contest it, and the held money stays with the processor.
 * @example const view = await acceptDispute(ctx, merchantId, disputeId);
 */
export async function acceptDispute(ctx: AppContext, merchantId: string, disputeId: string): Promise<DisputeView> {
  const { dispute } = await loadDispute(ctx.db, merchantId, disputeId);
  assertWaiting(dispute, 'it can be accepted');
  const actions = await providerActions(ctx, dispute);
  if (actions) await askProvider(() => actions.accept({ merchantId, processorReference: dispute.processor_reference }));
  return move(ctx, merchantId, disputeId, 'ACCEPTED');
}

async function move(ctx: AppContext, merchantId: string, disputeId: string, status: 'UNDER_REVIEW' | 'ACCEPTED'): Promise<DisputeView> {
  const now = await merchantNow(ctx.db, merchantId);
  return ctx.db.transaction().execute(async (trx) => {
    const { dispute, files } = await loadDispute(trx, merchantId, disputeId, { forUpdate: true });
    assertWaiting(dispute, status === 'ACCEPTED' ? 'it can be accepted' : 'evidence can be submitted');
    return disputeView(await changeDisputeStatus(trx, dispute, status, now), files);
  });
}

/** The provider's dispute actions for a dispute it reported; none for the sandbox's and MED's (decided already). */
async function providerActions(ctx: AppContext, dispute: DisputeRow): Promise<DisputeActions | null> {
  if (dispute.processor !== 'adyen') return null;
  const payment = await ctx.db.selectFrom('payments').select('method').where('merchant_id', '=', dispute.merchant_id).where('payment_token', '=', dispute.payment_token).executeTakeFirstOrThrow();
  const connector = await ctx.connectors.connectorFor(dispute.merchant_id, payment.method as PaymentMethodName);
  if (!connector.disputes) throw new ApiError('EXTERNAL_API', `the ${connector.id} connector takes no dispute responses.`);
  return connector.disputes;
}

async function askProvider(call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    if (error instanceof DisputeRefusedError) throw new ApiError('DISPUTE_PROCESSOR_REFUSED', `the processor refused: ${error.message}`);
    if (error instanceof ProcessorUnavailableError || error instanceof ProcessorTimeoutError) throw new ApiError('EXTERNAL_API');
    throw error;
  }
}
