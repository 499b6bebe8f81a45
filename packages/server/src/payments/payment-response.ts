import type { FastifyRequest } from 'fastify';
import { refreshToken } from '../auth/refresh-token';
import type { AppContext } from '../context';
import { toJsonNumber } from '../lib/money';
import { type PaymentRow } from './payment-record';
import { exponentOf } from '../lib/currencies';
import type { SendPaymentResult } from './send-payment';

/**
 * The answer of `sendPayment` (spec, Process checkout payment), shared by every endpoint that
 * starts a card payment (`POST /checkout/sendPayment`, `POST /checkout/3ds/payment`) so they answer
 * field for field the same.
 * @example return paymentResponse(ctx, request, await sendPayment(ctx, merchantId, body));
 */
export async function paymentResponse(ctx: AppContext, request: FastifyRequest, { payment, cardStatus, customerFees }: SendPaymentResult) {
  const exponent = exponentOf(payment.currency);
  return {
    payment_token: payment.payment_token,
    refresh_token: await refreshToken(ctx, request),
    transaction_status: payment.status,
    public_person_id: payment.person_id ?? '',
    public_card_id: payment.card_id ?? '',
    public_card_status: cardStatus,
    totals: paymentTotals(payment),
    customer_fees: Object.fromEntries(customerFees.map((f) => [f.type, toJsonNumber(f.amountMinor, exponent)])),
  };
}

/**
 * The spec's Totals object of a payment (sendPayment, 3DS payments and subscription charges answer it).
 * @example const totals = paymentTotals(payment);
 */
export function paymentTotals(payment: Pick<PaymentRow, 'currency' | 'amount_minor' | 'customer_fees_minor' | 'original_amount_minor' | 'original_currency'>) {
  const exponent = exponentOf(payment.currency);
  return {
    amount: toJsonNumber(payment.amount_minor, exponent),
    asset: payment.currency,
    original_amount: toJsonNumber(payment.original_amount_minor, exponentOf(payment.original_currency)),
    original_asset: payment.original_currency,
    customer_fees: toJsonNumber(payment.customer_fees_minor, exponent),
    customer_amount: toJsonNumber(payment.amount_minor + payment.customer_fees_minor, exponent),
  };
}
