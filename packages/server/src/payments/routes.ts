import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { toJsonNumber } from '../lib/money';
import { cancelPreAuthorization } from './cancel';
import { capturePayment } from './capture';
import { exponentOf } from './payment-record';
import { CaptureBody, PaymentResponse, PaymentTokenParams, SendPaymentBody, StatusResponse } from './schemas';
import { sendPayment } from './send-payment';
import { transactionDetails } from './transaction-details';

/** Card payments: sendPayment, capture, cancel and transaction details. Thin: schema, one call, presentation. */
export function registerPaymentRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/checkout/sendPayment',
    {
      schema: {
        summary: 'Process a card payment',
        description: 'Charges a stored card. Answers PROCESSING; the outcome follows in transaction details and callbacks.',
        tags: ['Payments'],
        body: SendPaymentBody,
        response: { 200: PaymentResponse, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => {
      const { payment, cardStatus } = await sendPayment(ctx, principalOf(request).merchantId, request.body);
      const exponent = exponentOf(payment.currency);
      const fees = await ctx.db
        .selectFrom('payment_fees')
        .select(['fee_type', 'amount_minor'])
        .where('payment_token', '=', payment.payment_token)
        .where('payer', '=', 'CUSTOMER')
        .execute();
      return {
        payment_token: payment.payment_token,
        refresh_token: await refreshToken(ctx, request),
        transaction_status: payment.status,
        public_person_id: payment.person_id ?? '',
        public_card_id: payment.card_id ?? '',
        public_card_status: cardStatus,
        totals: {
          amount: toJsonNumber(payment.amount_minor, exponent),
          asset: payment.currency,
          original_amount: toJsonNumber(payment.original_amount_minor, exponentOf(payment.original_currency)),
          original_asset: payment.original_currency,
          customer_fees: toJsonNumber(payment.customer_fees_minor, exponent),
          customer_amount: toJsonNumber(payment.amount_minor + payment.customer_fees_minor, exponent),
        },
        customer_fees: Object.fromEntries(fees.map((f) => [f.fee_type, toJsonNumber(f.amount_minor, exponent)])),
      };
    },
  );

  app.post(
    '/checkout/:payment_token/capture',
    {
      schema: {
        summary: 'Capture a pre-authorised payment',
        tags: ['Payments'],
        params: PaymentTokenParams,
        body: CaptureBody,
        response: { 200: StatusResponse, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) => {
      const payment = await capturePayment(ctx, principalOf(request).merchantId, request.params.payment_token, request.body.amount);
      return { payment_token: payment.payment_token, refresh_token: await refreshToken(ctx, request), transaction_status: payment.status };
    },
  );

  app.post(
    '/checkout/:payment_token/cancel',
    {
      schema: {
        summary: 'Cancel a pre-authorisation',
        description: 'Voids a PRE_AUTHORIZED payment; it ends CANCELED. Uncaptured pre-authorisations are canceled after 5 days anyway.',
        tags: ['Payments'],
        params: PaymentTokenParams,
        response: { 200: StatusResponse, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const payment = await cancelPreAuthorization(ctx, principalOf(request).merchantId, request.params.payment_token);
      return { payment_token: payment.payment_token, refresh_token: await refreshToken(ctx, request), transaction_status: payment.status };
    },
  );

  app.get(
    '/transactionDetails/:payment_token',
    {
      schema: {
        summary: 'Details of one transaction',
        tags: ['Payments'],
        params: PaymentTokenParams,
        response: { 200: Type.Unknown({ description: 'The Transaction details resource (docs/payments.md)' }), ...errorResponses(401, 404) },
      },
    },
    async (request) => transactionDetails(ctx, principalOf(request).merchantId, request.params.payment_token),
  );
}
