import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { merchantNow } from '../clock/merchant-clock';
import type { App, AppContext } from '../context';
import { loadCheckout } from '../checkout/get-checkout';
import { payWithCard } from '../checkout/pay-with-card';
import { CardAttemptBody, CheckoutIdParams, CodeAttemptBody, PublicStatusResponse } from '../checkout/schemas';
import { startCodeAttempt } from '../checkout/start-attempt';
import { redirectUrlOf, type CheckoutStatus } from '../checkout/states';
import { errorResponses } from '../http/schema-kit';
import { PAGE_CSP, pageAssets } from './assets';
import { buildPage, pageVersion } from './build-page';
import { renderPage } from './render-page';
import { langOf } from './i18n';

const PUBLIC = { auth: 'public' as const };

/** Headers of every page answer: the strict CSP, no sniffing, no referrer, never cached. */
function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cache-control', 'no-store');
}

/**
 * The customer's side of hosted checkout, all public (the unguessable checkout id is the capability):
 * the page at `checkout_url`, its status poll, starting a PIX or boleto attempt, paying by card, and
 * the page's own script and style sheet.
 * @example registerCheckoutPageRoutes(app, ctx);
 */
export function registerCheckoutPageRoutes(app: App, ctx: AppContext): void {
  const { script, style } = pageAssets();
  for (const asset of [script, style]) {
    app.get(asset.path, { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
      reply.type(asset.contentType).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(asset.body),
    );
  }

  app.get(
    '/pay/:checkout_id',
    {
      config: PUBLIC,
      schema: {
        summary: 'The hosted checkout page (HTML)',
        description: 'Portuguese by default; `?lang=en` for English.',
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        querystring: Type.Object({
          lang: Type.Optional(Type.String({ maxLength: 8 })),
          method: Type.Optional(Type.String({ maxLength: 16 })),
          choose: Type.Optional(Type.String({ maxLength: 8 })),
        }),
      },
    },
    async (request, reply) => {
      const lang = langOf(request.query.lang);
      // An unknown or malformed id is a 404 in the standard error body, like every other error.
      const model = await buildPage(ctx, request.params.checkout_id, { lang, method: request.query.method, choose: request.query.choose !== undefined });
      return pageHeaders(reply).type('text/html; charset=utf-8').send(renderPage(model));
    },
  );

  app.get(
    '/pay/:checkout_id/status',
    {
      config: PUBLIC,
      schema: {
        summary: "A checkout session's public status (polled by its page)",
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        response: { 200: PublicStatusResponse, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const session = await loadCheckout(ctx, request.params.checkout_id);
      const now = await merchantNow(ctx.db, session.merchant_id);
      reply.header('cache-control', 'no-store');
      return {
        status: session.status as CheckoutStatus,
        version: pageVersion(session),
        payment_status: session.current_payment_status,
        redirect_url: redirectUrlOf(session),
        seconds_left: Math.max(0, Math.ceil((session.expires_at.getTime() - now.getTime()) / 1000)),
      };
    },
  );

  app.post(
    '/pay/:checkout_id/attempts',
    {
      config: PUBLIC,
      schema: {
        summary: 'Start a PIX or boleto attempt (multi-method selection screen)',
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        body: CodeAttemptBody,
        response: { 200: Type.Object({ payment_token: Type.String(), status: Type.String() }), ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request) => {
      const { session, payment } = await startCodeAttempt(ctx, request.params.checkout_id, request.body.method);
      return { payment_token: payment.payment_token, status: session.status };
    },
  );

  app.post(
    '/pay/:checkout_id/card',
    {
      // A public endpoint that verifies cards is what card testers look for: bound it per address.
      config: { ...PUBLIC, rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        summary: 'Pay a checkout session by card (the page card form)',
        description: 'Creates the person and card (verified with the processor) and the card payment; the outcome follows on the status endpoint.',
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        body: CardAttemptBody,
        response: { 200: Type.Object({ payment_token: Type.String(), status: Type.String(), transaction_status: Type.String() }), ...errorResponses(400, 404, 409, 422, 429, 502) },
      },
    },
    async (request) => {
      const { session, payment } = await payWithCard(ctx, request.params.checkout_id, request.body);
      return { payment_token: payment.payment_token, status: session.status, transaction_status: payment.status };
    },
  );
}
