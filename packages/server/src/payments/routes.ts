import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { idempotencyKeyOf } from '../http/idempotency';
import { registerInstallmentRoutes } from './installments-route';
import { errorResponses } from '../http/schema-kit';
import { cancelPreAuthorization } from './cancel';
import { capturePayment } from './capture';
import { paymentResponse } from './payment-response';
import { listPayments } from './list-payments';
import { CaptureBody, PaymentListQuery, PaymentPage, PaymentResponse, PaymentTokenParams, SendPaymentBody, StatusResponse } from './schemas';
import { sendPayment, type AuthenticationClaims } from './send-payment';

/**
 * Card payments: the list, sendPayment, capture and cancel (transaction details: payment-details/routes.ts). Thin: schema, one call, presentation.
 * `claims` claims the 3DS data a sendPayment carries (3DS's, handed in by app.ts; AuthenticationClaims in send-payment.ts).
 */
export function registerPaymentRoutes(app: App, ctx: AppContext, claims: AuthenticationClaims): void {
  registerInstallmentRoutes(app, ctx);
  app.get(
    '/payments',
    {
      schema: {
        summary: "Find the merchant's payments",
        description:
          'Newest first, as a page object; filters by your reference_id (exact), status, method and the day created. ' +
          'To walk every page while payments keep arriving, pin created_before to just after the first page\'s newest created_at.',
        tags: ['Payments'],
        querystring: PaymentListQuery,
        response: { 200: PaymentPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ ...(await listPayments(ctx.db, principalOf(request).merchantId, request.query)), refresh_token: await refreshToken(ctx, request) }),
  );

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
    async (request) =>
      paymentResponse(ctx, request, await sendPayment(ctx, principalOf(request).merchantId, request.body, { idempotencyKey: idempotencyKeyOf(request), claims })),
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
      const answer = await capturePayment(ctx, principalOf(request).merchantId, request.params.payment_token, request.body.amount, { idempotencyKey: idempotencyKeyOf(request) });
      return { ...answer, refresh_token: await refreshToken(ctx, request) };
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
      const answer = await cancelPreAuthorization(ctx, principalOf(request).merchantId, request.params.payment_token, { idempotencyKey: idempotencyKeyOf(request) });
      return { ...answer, refresh_token: await refreshToken(ctx, request) };
    },
  );
}
