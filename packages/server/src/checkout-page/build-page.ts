import { loadFeePlan, planOptions } from '../fees/fee-plan';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import type { CheckoutRow } from '../checkout/checkout-record';
import { loadCheckout } from '../checkout/get-checkout';
import { startCodeAttempt } from '../checkout/start-attempt';
import { boletoBankFor } from '../checkout/boleto-bank';
import QRCode from 'qrcode';
import { attemptOutcome, isCardMethod, isCodeMethod, isFinalCheckoutStatus, redirectUrlOf, type CardMethod } from '../checkout/states';
import { renderCashVoucherBarcodeSvg } from '../rails/mexico';
import { formatDigitableLine, renderBoletoBarcodeSvg } from '../rails/boleto';
import { renderBrCodeSvg } from '../rails/pix';
import { chooseLang, type LangRequest } from './i18n';
import type { PageModel, PageView } from './render-page';

export interface PageQuery {
  /** `?lang=` and Accept-Language; the page's language is chosen with the session's country (chooseLang). */
  readonly lang: LangRequest;
  /** `CREDITCARD`: show the card form (the card link of the selection screen). */
  readonly method?: string | undefined;
  /** Show the selection screen even while a PIX or boleto attempt is open. */
  readonly choose?: boolean;
}

/**
 * What the page and its poll compare: the page is redrawn when the session's status, its attempt or
 * that attempt's payment status changes, or when the PSP's code of a PIX attempt arrives.
 * @example pageVersion(session) // 'PROCESSING|8f0c…|CREATED'
 */
export function pageVersion(session: Pick<CheckoutRow, 'status' | 'current_payment_token' | 'current_payment_status' | 'card_attempt_started_at'>, codePending = false): string {
  return `${session.status}|${session.current_payment_token ?? '-'}|${session.card_attempt_started_at ? 'card-attempt' : (session.current_payment_status ?? '-')}${codePending ? '|code-pending' : ''}`;
}

/** Whether the session's attempt is a PIX charge whose code the PSP has not given yet (checkout/pix-charges.ts). */
export async function pixCodePending(ctx: Pick<AppContext, 'db'>, session: Pick<CheckoutRow, 'current_payment_token' | 'current_payment_status'>): Promise<boolean> {
  if (!session.current_payment_token || session.current_payment_status !== 'CREATED') return false;
  const codes = await ctx.db.selectFrom('checkout_payment_codes').select(['br_code', 'txid']).where('payment_token', '=', session.current_payment_token).executeTakeFirst();
  return codes !== undefined && codes.txid !== null && codes.br_code === null;
}

/**
 * Whether choosing boleto asks the shopper for the payer first: a bank registers the merchant's boletos
 * and the session has no payer (the merchant gave none at generation). The form is boleto-payer-form.ts.
 */
async function boletoPayerAsked(ctx: AppContext, session: CheckoutRow): Promise<boolean> {
  return (session.methods as string[]).includes('BOLETO') && session.payer === null && (await boletoBankFor(ctx, session.merchant_id)) !== null;
}

/**
 * Decides and gathers what the page shows:
 * - a final session: its outcome, with the merchant's URL to go to;
 * - an open code attempt: what the payer needs (PIX code, boleto, voucher, CLABE, PicPay link), unless
 *   the customer asked to choose again;
 * - an open card attempt: "processing" until its outcome arrives; the card payment that generation
 *   opened, still CREATED, waits for the card, so the form is shown;
 * - boleto chosen where a bank needs the payer the session lacks: the payer form (boleto-payer-form.ts);
 * - no open attempt: a single code method starts its attempt (generation normally has already, so this
 *   only matters for a session whose attempt was left); a single card method shows the form;
 *   multi-method shows the selection screen, or opens PIX directly with pixDirect on the first visit.
 * The session is read as stored (loadCheckout: no lock, no write); the only write a page view may make
 * is that fallback start of a code attempt, an attempt like POST …/attempts.
 * @example const model = await buildPage(ctx, checkoutId, { lang: { query: 'es' } });
 */
export async function buildPage(ctx: AppContext, checkoutId: string, query: PageQuery): Promise<PageModel> {
  let session = await loadCheckout(ctx, checkoutId);
  const merchant = await ctx.db.selectFrom('merchants').select(['name']).where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
  let payment = session.current_payment_token
    ? await ctx.db.selectFrom('payments').selectAll().where('payment_token', '=', session.current_payment_token).executeTakeFirst()
    : undefined;
  const open = session.card_attempt_started_at !== null || (payment !== undefined && attemptOutcome(payment.status) === 'OPEN');
  const failedBefore = payment !== undefined && (payment.status === 'DECLINED' || payment.status === 'ERROR');
  const multi = session.mode === 'MULTI';
  const wantsCard = (query.method === 'CREDITCARD' || query.method === 'DEBITCARD') && (session.methods as string[]).includes(query.method);
  const cardMethod: CardMethod = wantsCard ? (query.method as CardMethod) : session.methods[0] === 'DEBITCARD' ? 'DEBITCARD' : 'CREDITCARD';

  let now = await merchantNow(ctx.db, session.merchant_id);
  // Past its expiry the session is about to be ended by the sweep: nothing is started for it.
  if (!isFinalCheckoutStatus(session.status) && !open && now.getTime() < session.expires_at.getTime()) {
    const only = session.methods[0];
    const direct = !multi && only && isCodeMethod(only) ? only : multi && session.pix_direct && session.attempts === 0 && !wantsCard && !query.choose ? 'PIX' : null;
    if (direct) {
      ({ session, payment } = await startCodeAttempt(ctx, checkoutId, direct));
      now = await merchantNow(ctx.db, session.merchant_id);
    }
  }

  const secondsLeft = Math.max(0, Math.ceil((session.expires_at.getTime() - now.getTime()) / 1000));
  const stillOpen = payment !== undefined && attemptOutcome(payment.status) === 'OPEN';
  // Boleto chosen where the bank needs a payer the session lacks (an open boleto is shown instead).
  const askPayer = !isFinalCheckoutStatus(session.status) && query.method === 'BOLETO' && !(stillOpen && payment?.method === 'BOLETO') && (await boletoPayerAsked(ctx, session));
  let view: PageView;
  if (isFinalCheckoutStatus(session.status)) {
    const outcome = session.status === 'PAID' ? 'PAID' : session.end_reason === 'EXPIRED' ? 'EXPIRED' : session.status === 'ERROR' ? 'ERROR' : 'CANCELED';
    view = { kind: 'final', outcome, redirectUrl: redirectUrlOf(session) };
  } else if (session.card_attempt_started_at !== null || (stillOpen && payment && isCardMethod(payment.method) && payment.status !== 'CREATED')) {
    view = { kind: 'processing' };
  } else if (stillOpen && payment && isCodeMethod(payment.method) && !(multi && (query.choose || wantsCard || askPayer))) {
    const codes = await ctx.db.selectFrom('checkout_payment_codes').selectAll().where('payment_token', '=', payment.payment_token).executeTakeFirstOrThrow();
    const paymentSecondsLeft = Math.max(0, Math.ceil(((payment.expires_at ?? session.expires_at).getTime() - now.getTime()) / 1000));
    if (payment.method === 'PIX' && codes.br_code) {
      view = { kind: 'pix', brCode: codes.br_code, qrSvg: await renderBrCodeSvg(codes.br_code, { margin: 2 }), secondsLeft };
    } else if (payment.method === 'PIX') {
      // The PSP has not given the charge's code yet (it failed or did not answer); reconciliation asks again.
      view = { kind: 'processing' };
    } else if (payment.method === 'BOLETO') {
      const line = codes.digitable_line ?? '';
      const barcode = codes.barcode ?? '';
      const compensating = payment.status === 'PROCESSING';
      // A boleto registered with a bank may carry a PIX charge beside it (boleto híbrido, checkout/boleto-bank.ts).
      const pix = codes.br_code && !compensating ? { brCode: codes.br_code, qrSvg: await renderBrCodeSvg(codes.br_code, { margin: 2 }) } : null;
      view = { kind: 'boleto', digitableLine: line, formattedLine: formatDigitableLine(line), barcode, barcodeSvg: renderBoletoBarcodeSvg(barcode), dueDate: codes.due_date ?? '', compensating, pix };
    } else if ((payment.method === 'OXXO' || payment.method === 'PAYNET') && codes.reference) {
      view = { kind: 'voucher', network: payment.method, reference: codes.reference, barcodeSvg: renderCashVoucherBarcodeSvg(codes.reference), secondsLeft: paymentSecondsLeft };
    } else if (payment.method === 'SPEI' && codes.clabe) {
      view = { kind: 'spei', clabe: codes.clabe, reference: codes.reference ?? '', secondsLeft: paymentSecondsLeft };
    } else {
      const link = codes.deep_link ?? '';
      view = { kind: 'picpay', deepLink: link, qrSvg: await QRCode.toString(codes.qr_payload ?? link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }), secondsLeft: paymentSecondsLeft };
    }
  } else if (askPayer) {
    view = { kind: 'boleto-payer' };
  } else if (wantsCard || (!multi && isCardMethod(session.methods[0] ?? ''))) {
    // The merchant's installment options on what the session charges (plan-wide rates: the card is not typed yet).
    // The month the vault checks expiry dates against (the merchant clock, in UTC as validateExpiry
    // reads it), so the page refuses the same expired cards the server would.
    const currentMonth = now.toISOString().slice(0, 7);
    view = { kind: 'card', method: cardMethod, failedBefore, installments: planOptions(await loadFeePlan(ctx.db, session.merchant_id), session.amount_minor), currentMonth };
  } else {
    view = { kind: 'choose', failedBefore, boletoPayerAsked: await boletoPayerAsked(ctx, session) };
  }
  return {
    lang: chooseLang(query.lang, session.payment_country),
    session,
    merchantName: merchant.name,
    chargeMinor: payment ? payment.amount_minor + payment.customer_fees_minor : session.amount_minor,
    currency: session.currency,
    sandbox: ctx.config.mode === 'sandbox',
    version: pageVersion(session, await pixCodePending(ctx, session)),
    view,
  };
}
