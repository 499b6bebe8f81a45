import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { ApiError } from '../http/errors';
import { absoluteUrl } from '../http/public-url';
import { errorResponses } from '../http/schema-kit';
import { formatDateTime } from '../lib/time-format';
import { generateCheckout } from './generate-checkout';
import { getCheckout } from './get-checkout';
import { checkoutPaymentView } from './payment-view';
import { CheckoutIdParams, CheckoutResponse, GenerateCheckoutBody, GenerateCheckoutResponse } from './schemas';
import type { CheckoutMethod, CheckoutMode, CheckoutStatus } from './states';

/**
 * The merchant's side of hosted checkout: generate a session and read it. The customer's side (the
 * page and its public endpoints) is in checkout-page/routes.ts. `GET /checkout/:checkout_id` shares
 * its prefix with the POST-only `/checkout/sendPayment`, `/checkout/person`, `/checkout/card` and
 * `/checkout/:payment_token/capture`, which a GET never reaches.
 * @example registerCheckoutRoutes(app, ctx);
 */
export function registerCheckoutRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/checkout/generate',
    {
      schema: {
        summary: 'Generate a hosted checkout session',
        description: 'Creates a session and answers the public checkout_url to send the customer to. In single-method mode (or with pixDirect) the payment attempt starts at once and `payment` carries it (with a card method, a payment that waits CREATED for the card entered on the page); otherwise `payment` is null (docs/checkout.md).',
        tags: ['Checkout'],
        body: GenerateCheckoutBody,
        response: { 200: GenerateCheckoutResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { session, payment } = await generateCheckout(ctx, principalOf(request).merchantId, request.body);
      const codes = payment ? await ctx.db.selectFrom('checkout_payment_codes').selectAll().where('payment_token', '=', payment.payment_token).executeTakeFirst() : undefined;
      return {
        checkout_id: session.checkout_id,
        checkout_url: absoluteUrl(ctx, request, `/pay/${session.checkout_id}`),
        status: session.status as CheckoutStatus,
        mode: session.mode as CheckoutMode,
        methods: session.methods as CheckoutMethod[],
        expires_at: formatDateTime(session.expires_at),
        payment: payment ? await checkoutPaymentView(payment, codes, session.save_card) : null,
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  // Registered with checkout, whose rule it sets, rather than in admin/routes.ts.
  const BoletoTerm = Type.Object({ due_business_days: Type.Integer({ minimum: 1, maximum: 60, description: 'business days from generation to the due date (default 3)' }) });
  app.put(
    '/admin/merchants/:merchantId/boleto-term',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Set a merchant's boleto term",
        description: 'How many bank business days after generation a boleto of this merchant is due (docs/checkout.md, Boleto).',
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        params: Type.Object({ merchantId: Type.String({ format: 'uuid' }) }),
        body: BoletoTerm,
        response: { 200: BoletoTerm, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const updated = await ctx.db
        .updateTable('merchants')
        .set({ boleto_due_business_days: request.body.due_business_days })
        .where('id', '=', request.params.merchantId)
        .returning('boleto_due_business_days')
        .executeTakeFirst();
      if (!updated) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');
      return { due_business_days: updated.boleto_due_business_days };
    },
  );

  app.get(
    '/checkout/:checkout_id',
    {
      schema: {
        summary: 'A checkout session and its payments',
        tags: ['Checkout'],
        params: CheckoutIdParams,
        response: { 200: CheckoutResponse, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      ...(await getCheckout(ctx, principalOf(request).merchantId, request.params.checkout_id)),
      refresh_token: await refreshToken(ctx, request),
    }),
  );
}
