import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
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
        description: 'Creates a session and answers the public checkout_url to send the customer to. In single-method mode with a code method (or with pixDirect) the payment attempt starts at once and `payment` carries it; otherwise `payment` is null (docs/checkout.md).',
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
