import QRCode from 'qrcode';
import type { Db } from '../db/database';
import { toJsonNumber } from '../lib/money';
import { formatDateTime } from '../lib/time-format';
import { customerAmount, type PaymentRow } from '../payments/payment-record';
import { exponentOf } from '../lib/currencies';
import type { CheckoutPaymentCodesTable } from '../db/tables/checkout';
import type { Selectable } from 'kysely';

type Codes = Selectable<CheckoutPaymentCodesTable>;
type ViewedPayment = Pick<PaymentRow, 'payment_token' | 'method' | 'status' | 'person_id' | 'card_id' | 'amount_minor' | 'customer_fees_minor' | 'currency' | 'expires_at'>;

/**
 * A QR code as a `data:image/png;base64,…` URL, what an app or an e-mail can show without fetching
 * anything (error correction M, as on the page).
 * @example await qrDataUrl('000201…') // 'data:image/png;base64,iVBOR…'
 */
export function qrDataUrl(payload: string): Promise<string> {
  return QRCode.toDataURL(payload, { errorCorrectionLevel: 'M', margin: 2, width: 256, type: 'image/png' });
}

/**
 * A checkout payment as the merchant reads it (contract, Hosted checkout): token, method, status, what
 * the customer pays, and what the payer needs to pay it, under the method's name: `pix {br_code,
 * qr_code}`, `boleto {digitable_line, barcode, due_date}`, `oxxo`/`paynet {reference, barcode,
 * expires_at}`, `spei {clabe, bank_code, reference, expires_at}`, `picpay {deep_link, qr_code,
 * expires_at}`. With saveCard, card payments name the kept person and card.
 * @example const view = await checkoutPaymentView(payment, codes, false);
 */
export async function checkoutPaymentView(payment: ViewedPayment, codes: Codes | undefined, saveCard: boolean) {
  const expiresAt = payment.expires_at ? formatDateTime(payment.expires_at) : null;
  return {
    payment_token: payment.payment_token,
    method: payment.method,
    transaction_status: payment.status,
    amount: toJsonNumber(customerAmount(payment), exponentOf(payment.currency)),
    asset: payment.currency,
    ...(saveCard && payment.person_id && payment.card_id ? { public_person_id: payment.person_id, public_card_id: payment.card_id } : {}),
    ...(codes?.br_code ? { pix: { br_code: codes.br_code, qr_code: await qrDataUrl(codes.br_code), expires_at: expiresAt } } : {}),
    ...(payment.method === 'BOLETO' && codes?.digitable_line && codes.barcode && codes.due_date
      ? { boleto: { digitable_line: codes.digitable_line, barcode: codes.barcode, due_date: codes.due_date } }
      : {}),
    ...(payment.method === 'OXXO' && codes?.reference ? { oxxo: { reference: codes.reference, barcode: codes.barcode, expires_at: expiresAt } } : {}),
    ...(payment.method === 'PAYNET' && codes?.reference ? { paynet: { reference: codes.reference, barcode: codes.barcode, expires_at: expiresAt } } : {}),
    ...(payment.method === 'SPEI' && codes?.clabe ? { spei: { clabe: codes.clabe, bank_code: codes.clabe.slice(0, 3), reference: codes.reference, expires_at: expiresAt } } : {}),
    ...(payment.method === 'PICPAY' && codes?.deep_link ? { picpay: { deep_link: codes.deep_link, qr_code: await qrDataUrl(codes.qr_payload ?? codes.deep_link), expires_at: expiresAt } } : {}),
  };
}

/**
 * The views of a session's payments, oldest first.
 * @example const payments = await checkoutPaymentViews(db, session);
 */
export async function checkoutPaymentViews(db: Db, session: { checkout_id: string; merchant_id: string; save_card: boolean }) {
  const payments = await db
    .selectFrom('payments')
    .select(['payment_token', 'method', 'status', 'person_id', 'card_id', 'amount_minor', 'customer_fees_minor', 'currency', 'expires_at'])
    .where('checkout_id', '=', session.checkout_id)
    .where('merchant_id', '=', session.merchant_id)
    .orderBy('created_at')
    .orderBy('payment_token')
    .execute();
  const codes = payments.length === 0 ? [] : await db.selectFrom('checkout_payment_codes').selectAll().where('checkout_id', '=', session.checkout_id).execute();
  const byToken = new Map(codes.map((c) => [c.payment_token, c]));
  return Promise.all(payments.map((p) => checkoutPaymentView(p, byToken.get(p.payment_token), session.save_card)));
}
