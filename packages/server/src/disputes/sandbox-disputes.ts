import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { ApiError } from '../http/errors';
import { IllegalMoveError } from '../lib/state-machine';
import { lockPayment } from '../payments/payment-record';
import { readAmount } from '../pricing/price';
import { assertSandboxOnly } from '../processor/live-mode';
import { changeDisputeStatus, disputableMinor, disputeView, loadDispute, openDispute, type DisputeView } from './dispute-record';
import { sandboxChargeback } from './sweep-disputes';

/**
 * The sandbox's acquirer, driven by the merchant (docs/disputes.md, "Sandbox"): it opens a dispute on a
 * paid payment, and rules on one under review. Sandbox mode only.
 */

/**
 * `POST /sandbox/disputes/<id>/close`: the acquirer rules on an UNDER_REVIEW dispute.
 * @example await closeSandboxDispute(ctx, merchantId, disputeId, 'WON')
 */
export async function closeSandboxDispute(ctx: AppContext, merchantId: string, disputeId: string, outcome: 'WON' | 'LOST'): Promise<DisputeView> {
  assertSandboxOnly(ctx.config, 'Closing a dispute by hand');
  const now = await merchantNow(ctx.db, merchantId);
  return ctx.db.transaction().execute(async (trx) => {
    const { dispute: seen } = await loadDispute(trx, merchantId, disputeId);
    await lockPayment(trx, merchantId, seen.payment_token);
    const { dispute, files } = await loadDispute(trx, merchantId, disputeId, { forUpdate: true });
    if (dispute.status !== 'UNDER_REVIEW') throw new IllegalMoveError('dispute', dispute.status, outcome, ['UNDER_REVIEW']);
    return disputeView(await changeDisputeStatus(trx, dispute, outcome, now), files);
  });
}

/**
 * `POST /sandbox/payments/<token>/dispute`: the acquirer disputes a paid payment now, for `amount` (all
 * that can still be disputed when absent), with a Visa reason code and a stage.
 * @example await openSandboxDispute(ctx, merchantId, token, { amount: 25, reason_code: '13.1' })
 */
export async function openSandboxDispute(
  ctx: AppContext,
  merchantId: string,
  paymentToken: string,
  input: { amount?: number | undefined; reason_code?: string | undefined; stage?: 'INQUIRY' | 'CHARGEBACK' | undefined },
): Promise<DisputeView> {
  assertSandboxOnly(ctx.config, 'Opening a dispute by hand');
  const now = await merchantNow(ctx.db, merchantId);
  return ctx.db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) throw new ApiError('NOT_FOUND', 'payment_token: payment not found.');
    let amountMinor: bigint;
    if (input.amount === undefined) amountMinor = await disputableMinor(trx, payment);
    else {
      const parsed = readAmount(input.amount, payment.currency);
      if (!parsed.ok) throw new ApiError('FIELD_FORMAT', `amount: must be a positive amount with the decimals ${payment.currency} allows.`);
      amountMinor = parsed.minor;
    }
    const dispute = await openDispute(trx, payment, sandboxChargeback(amountMinor, now, { reasonCode: input.reason_code, stage: input.stage }), now);
    return disputeView(dispute, []);
  });
}
