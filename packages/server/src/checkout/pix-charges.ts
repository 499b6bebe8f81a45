import { sql } from 'kysely';
import { merchantNow } from '../clock/merchant-clock';
import { issuesPixCharges, PixChargeRefusedError, type Connector, type PixCharge, type PixChargeIssuer, type PixReceipt } from '../connectors/connector';
import { recordOutcome } from '../connectors/operations';
import type { AppContext } from '../context';
import type { Db } from '../db/database';
import { ApiError } from '../http/errors';
import { captureJournal, changeStatus, lockPayment, type PaymentRow } from '../payments/payment-record';
import { declined, failed } from '../processor/outcome-codes';
import { attemptOutcome } from '../processor/processor';
import { lockCheckout } from './checkout-record';
import { syncCheckout } from './sync-checkout';

/**
 * The life of a PIX charge issued by a PSP (a connector that issues PIX charges, connectors/pix/),
 * in Colibri's terms:
 * 1. the attempt's transaction stores the payment CREATED and opens the charge in the connector's
 *    books (`<payment_token>:charge`, PENDING), so nothing is lost whatever happens next;
 * 2. after it commits, the PSP is asked for the charge and its dynamic BR Code is stored; a PSP that
 *    fails or does not answer leaves the attempt waiting for its code (the session PROCESSING);
 * 3. the PSP's webhook, or reading the charge back, brings the received PIX: the payment becomes PAID
 *    with its endToEndId, and the record APPROVED;
 * 4. reconciliation reads back every charge still open in the books (`GET /cob/{txid}`): it stores a
 *    code that never arrived (creating the charge if the PSP has none), applies a payment whose
 *    notification was lost, and withdraws the charge of an attempt that was canceled or lapsed;
 * 5. once paid, the PIX's returns are watched for a MED devolução (pix-returns.ts).
 */

type Issuer = Connector & PixChargeIssuer;
type Receipt = 'PAID' | 'ALREADY_PAID' | 'CLOSED' | 'AMOUNT_MISMATCH';

/** A payment's charge id at the PSP: its token's 32 hex digits (the standard asks 26 to 35 letters and digits). */
export function pixTxid(paymentToken: string): string {
  return paymentToken.replace(/-/g, '');
}

/** The payment token a txid of Colibri's stands for, or null for a txid Colibri never made. */
export function paymentTokenOfTxid(txid: string): string | null {
  const hex = /^[0-9a-f]{32}$/.exec(txid)?.[0];
  return hex ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : null;
}

export function chargeReference(paymentToken: string): string {
  return `${paymentToken}:charge`;
}

/** The end of the reference of the connector operation that watches a paid PIX's returns (pix-returns.ts). */
export const RETURNS_SUFFIX = ':returns';

/** The connector that issues the merchant's PIX charges, or null (the simulator makes its own codes). */
export async function pixIssuerFor(ctx: Pick<AppContext, 'connectors'>, merchantId: string): Promise<Issuer | null> {
  try {
    const connector = await ctx.connectors.connectorFor(merchantId, 'PIX');
    return issuesPixCharges(connector) ? connector : null;
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/** In the attempt's transaction: the charge is opened in the issuer's books. Returns its txid. */
export async function openPixCharge(trx: Db, connectorId: string, payment: Pick<PaymentRow, 'payment_token' | 'merchant_id'>): Promise<string> {
  const txid = pixTxid(payment.payment_token);
  await recordOutcome(trx, { connector: connectorId, merchantId: payment.merchant_id, reference: chargeReference(payment.payment_token), providerReference: txid, outcome: { status: 'PENDING', processorId: txid } });
  return txid;
}

/**
 * Step 2: asks the PSP for the charge of a PIX attempt whose transaction committed, and stores its BR
 * Code. Nothing is asked when the charge already has its code; a PSP that fails or does not answer is
 * left to reconciliation; one that refuses the charge fails the attempt. Returns whether the PSP was asked.
 * @example await issuePixCharge(ctx, payment);
 */
export async function issuePixCharge(ctx: AppContext, payment: Pick<PaymentRow, 'payment_token' | 'merchant_id' | 'method'>): Promise<boolean> {
  // A boleto registered with a bank carries a PIX charge too where a PSP issues the merchant's (boleto híbrido).
  if (payment.method !== 'PIX' && payment.method !== 'BOLETO') return false;
  const issuer = await pixIssuerFor(ctx, payment.merchant_id);
  if (!issuer) return false;
  const codes = await ctx.db.selectFrom('checkout_payment_codes').select(['br_code', 'txid']).where('payment_token', '=', payment.payment_token).executeTakeFirst();
  if (!codes || codes.br_code || !codes.txid) return false;
  try {
    await reconcileCharge(ctx, issuer, payment.merchant_id, payment.payment_token, false);
  } catch (error) {
    if (!attemptOutcome(error)) throw error;
  }
  return true;
}

/**
 * Step 3: a PIX received for a payment's charge. In one transaction, session first then payment (the
 * order every checkout writer takes): a CREATED payment whose amount matches becomes PROCESSING then
 * PAID with the endToEndId (as processor id too: a refund goes back by it), its capture journal and
 * events; the charge's record becomes APPROVED; the session follows. Applying a receipt twice changes
 * nothing. A PIX for a payment already closed (canceled or lapsed), or of another amount, is not
 * applied: its record ends ERROR so that reconciliation stops, and the operator refunds it at the PSP.
 */
export async function receivePix(ctx: AppContext, connectorId: string, merchantId: string, paymentToken: string, receipt: PixReceipt): Promise<Receipt> {
  const now = await merchantNow(ctx.db, merchantId);
  const reference = chargeReference(paymentToken);
  const outcome = await ctx.db.transaction().execute(async (trx): Promise<Receipt> => {
    const seen = await trx.selectFrom('payments').select('checkout_id').where('payment_token', '=', paymentToken).where('merchant_id', '=', merchantId).executeTakeFirst();
    const session = seen?.checkout_id ? await lockCheckout(trx, seen.checkout_id, merchantId) : undefined;
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (!payment) return 'CLOSED';
    if (payment.end_to_end_id === receipt.endToEndId) return 'ALREADY_PAID';
    if (payment.status !== 'CREATED') return 'CLOSED';
    if (receipt.amountMinor !== payment.amount_minor + payment.customer_fees_minor) return 'AMOUNT_MISMATCH';
    const processing = await changeStatus(trx, payment, 'PROCESSING', now);
    await changeStatus(trx, processing, 'PAID', now, {
      authorized_minor: payment.amount_minor,
      captured_minor: payment.amount_minor,
      end_to_end_id: receipt.endToEndId,
      processor_id: receipt.endToEndId,
    }, (row) => [captureJournal(row, now)]);
    await recordOutcome(trx, { connector: connectorId, merchantId, reference, providerReference: pixTxid(paymentToken), outcome: { status: 'APPROVED', processorId: receipt.endToEndId } });
    // Its returns are watched from now on, for a MED devolução whose notification is lost (pix-returns.ts).
    await recordOutcome(trx, { connector: connectorId, merchantId, reference: `${paymentToken}${RETURNS_SUFFIX}`, providerReference: receipt.endToEndId, outcome: { status: 'PENDING', processorId: receipt.endToEndId } });
    const current = session ? await lockCheckout(trx, session.checkout_id, merchantId) : undefined;
    if (current) await syncCheckout(trx, current, now);
    return 'PAID';
  });
  if (outcome === 'CLOSED' || outcome === 'AMOUNT_MISMATCH') {
    const why = outcome === 'CLOSED' ? 'after its payment closed' : 'with an amount other than the charge';
    await recordOutcome(ctx.db, { connector: connectorId, merchantId, reference, providerReference: pixTxid(paymentToken), outcome: failed('UNEXPECTED_RESULT', `PIX ${receipt.endToEndId} received ${why}; refund it at the PSP`) });
  }
  if (outcome === 'PAID') ctx.workerSignal.poke();
  return outcome;
}

/** At most this long between the PSP's end of a charge and Colibri's end of its attempt. */
const CHARGE_MARGIN_SECONDS = 60;

/** Reads a charge back (or creates it when `readFirst` is false or the PSP has none) and applies what it says. */
async function reconcileCharge(ctx: AppContext, issuer: Issuer, merchantId: string, paymentToken: string, readFirst: boolean): Promise<void> {
  const payment = await ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', paymentToken).where('merchant_id', '=', merchantId).executeTakeFirst();
  const reference = chargeReference(paymentToken);
  const txid = pixTxid(paymentToken);
  if (!payment) {
    await recordOutcome(ctx.db, { connector: issuer.id, merchantId, reference, providerReference: txid, outcome: declined('CANCELED') });
    return;
  }
  let charge: PixCharge | null = readFirst ? await issuer.readPixCharge(merchantId, txid) : null;
  if (payment.status === 'CREATED') {
    if (!charge) {
      const now = await merchantNow(ctx.db, merchantId);
      const secondsLeft = Math.floor(((payment.expires_at ?? now).getTime() - now.getTime()) / 1000);
      // An attempt about to lapse gets no charge; the checkout sweep expires it and the next pass closes the record.
      if (secondsLeft < 1) return;
      const merchant = await ctx.db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirstOrThrow();
      try {
        // The charge stops taking payments a little before the attempt lapses (a tenth of its time, at most a
        // minute), so that a PIX paid at the last moment is heard of while the payment can still take it.
        const expiresInSeconds = secondsLeft - Math.min(CHARGE_MARGIN_SECONDS, Math.floor(secondsLeft / 10));
        charge = await issuer.createPixCharge({ merchantId, merchantName: merchant.name, txid, amountMinor: payment.amount_minor + payment.customer_fees_minor, expiresInSeconds });
      } catch (error) {
        if (!(error instanceof PixChargeRefusedError)) throw error;
        await failAttempt(ctx, issuer.id, merchantId, paymentToken, error);
        return;
      }
    }
    if (charge.brCode) {
      await ctx.db.updateTable('checkout_payment_codes').set({ br_code: charge.brCode }).where('payment_token', '=', paymentToken).where('br_code', 'is', null).execute();
    }
  }
  const [receipt] = charge?.receipts ?? [];
  if (receipt) {
    await receivePix(ctx, issuer.id, merchantId, paymentToken, receipt);
    return;
  }
  if (payment.status === 'CREATED' && charge?.state === 'WITHDRAWN') {
    // The PSP removed the charge: nobody can pay it any more, so the attempt is canceled.
    await cancelAttempt(ctx, merchantId, paymentToken);
    await recordOutcome(ctx.db, { connector: issuer.id, merchantId, reference, providerReference: txid, outcome: declined('CANCELED') });
  } else if (payment.status !== 'CREATED') {
    // Closed without a payment (the payer left for another method, or the attempt lapsed): no PIX may follow.
    if (charge?.state === 'OPEN') await issuer.withdrawPixCharge(txid);
    await recordOutcome(ctx.db, { connector: issuer.id, merchantId, reference, providerReference: txid, outcome: declined('CANCELED') });
  }
}

/** The PSP refused the charge: the attempt ends ERROR with Colibri's code, and its session counts a failed attempt. */
async function failAttempt(ctx: AppContext, connectorId: string, merchantId: string, paymentToken: string, refusal: PixChargeRefusedError): Promise<void> {
  const now = await merchantNow(ctx.db, merchantId);
  await ctx.db.transaction().execute(async (trx) => {
    const seen = await trx.selectFrom('payments').select('checkout_id').where('payment_token', '=', paymentToken).executeTakeFirst();
    const session = seen?.checkout_id ? await lockCheckout(trx, seen.checkout_id, merchantId) : undefined;
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (payment?.status === 'CREATED') {
      const processing = await changeStatus(trx, payment, 'PROCESSING', now);
      await changeStatus(trx, processing, 'ERROR', now, { error_code: refusal.code, error_description: refusal.description });
    }
    await recordOutcome(trx, { connector: connectorId, merchantId, reference: chargeReference(paymentToken), providerReference: pixTxid(paymentToken), outcome: { status: 'ERROR', code: refusal.code, description: refusal.description } });
    if (session) await syncCheckout(trx, (await lockCheckout(trx, session.checkout_id, merchantId)) ?? session, now);
  });
}

async function cancelAttempt(ctx: AppContext, merchantId: string, paymentToken: string): Promise<void> {
  const now = await merchantNow(ctx.db, merchantId);
  await ctx.db.transaction().execute(async (trx) => {
    const seen = await trx.selectFrom('payments').select('checkout_id').where('payment_token', '=', paymentToken).executeTakeFirst();
    const session = seen?.checkout_id ? await lockCheckout(trx, seen.checkout_id, merchantId) : undefined;
    const payment = await lockPayment(trx, merchantId, paymentToken);
    if (payment?.status === 'CREATED') await changeStatus(trx, payment, 'CANCELED', now);
    if (session) await syncCheckout(trx, session, now);
  });
}

/** Charges read back per pass; the rest wait for the next one. */
const RECONCILE_LIMIT = 50;
/** How long the answer to "does any merchant have its own PIX connector?" is trusted, per service. */
const ISSUERS_RECHECK_MS = 60_000;
const merchantIssuers = new WeakMap<AppContext, { at: number; any: boolean }>();

/**
 * Step 4, run periodically by every worker process: claims the charges still open in the books that
 * were last looked at `olderThanMs` ago (the instance connector's COLIBRI_PIX_RECONCILE_MS), marking
 * them looked at now so that other processes skip them, and reconciles each with its merchant's
 * connector. A PSP that fails is asked again on a later pass. Returns how many were looked at.
 * @example await reconcilePixCharges(ctx, { olderThanMs: 0 });
 */
export async function reconcilePixCharges(ctx: AppContext, options: { olderThanMs?: number } = {}): Promise<number> {
  const instanceIssuer = ctx.connectors.instanceConnectors().find(issuesPixCharges);
  if (!instanceIssuer && options.olderThanMs === undefined) {
    let known = merchantIssuers.get(ctx);
    if (!known || Date.now() - known.at > ISSUERS_RECHECK_MS) {
      const row = await ctx.db.selectFrom('merchant_connectors').select('merchant_id').where('connector', '=', 'pix').limit(1).executeTakeFirst();
      known = { at: Date.now(), any: row !== undefined };
      merchantIssuers.set(ctx, known);
    }
    if (!known.any) return 0;
  }
  const olderThanMs = options.olderThanMs ?? instanceIssuer?.reconcileEveryMs ?? 30_000;
  const { rows } = await sql<{ connector: string; merchant_id: string; reference: string }>`
    update connector_operations set updated_at = now()
    where (connector, reference, merchant_id) in (
      select connector, reference, merchant_id from connector_operations
      where result->>'status' = 'PENDING' and reference like '%:charge'
        and updated_at <= now() - ${olderThanMs} * interval '1 millisecond'
      order by updated_at
      limit ${RECONCILE_LIMIT}
      for update skip locked)
    returning connector, merchant_id, reference`.execute(ctx.db);
  // One charge's failure does not hold back the others; the first that is not the PSP being unreachable
  // or slow is raised once the pass is over, for the periodic task to log.
  let unexpected: unknown;
  for (const row of rows) {
    const issuer = await pixIssuerFor(ctx, row.merchant_id);
    if (!issuer || issuer.id !== row.connector) continue;
    try {
      await reconcileCharge(ctx, issuer, row.merchant_id, row.reference.slice(0, -':charge'.length), true);
    } catch (error) {
      if (!attemptOutcome(error)) unexpected ??= error;
    }
  }
  if (unexpected) throw unexpected;
  return rows.length;
}
