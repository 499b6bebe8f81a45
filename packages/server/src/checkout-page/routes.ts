import { isIP } from 'node:net';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { merchantNow } from '../clock/merchant-clock';
import type { App, AppContext } from '../context';
import { loadCheckout } from '../checkout/get-checkout';
import { payWithCard } from '../checkout/pay-with-card';
import { CardAttemptBody, CheckoutIdParams, CodeAttemptBody, DebitAttemptBody, DebitAttemptResponse, PublicStatusResponse } from '../checkout/schemas';
import { completeDebitAttempt, startDebitAttempt, type DebitAnswer } from '../checkout/pay-with-debit';
import { startCodeAttempt } from '../checkout/start-attempt';
import { checkPayer, PAGE_PAYER_FIELDS } from '../checkout/boleto-payer';
import { ApiError } from '../http/errors';
import { redirectUrlOf, type CheckoutStatus } from '../checkout/states';
import { errorResponses } from '../http/schema-kit';
import { consumeOrRefuse, limiterKey, sharedLimiter } from '../lib/shared-limiter';
import { PAGE_CSP, pageAssets } from './assets';
import { buildPage, pageVersion, pixCodePending } from './build-page';
import { renderPage } from './render-page';

const PUBLIC = { auth: 'public' as const };

/** Colibri's icon: a hummingbird's green body and long beak on a round field, small enough to inline. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#05603a"/><path d="M18 40c6-2 10-8 14-14 3-4 8-6 12-4l12-6-10 9c1 6-3 12-10 15-6 3-13 2-18 0z" fill="#fff"/><circle cx="42" cy="25" r="2" fill="#05603a"/></svg>`;

function debitAnswer(answer: DebitAnswer) {
  return answer.status === 'SENT'
    ? { status: answer.status, payment_token: answer.payment.payment_token, transaction_status: answer.payment.status }
    : { status: answer.status, challenge_url: answer.challengeUrl };
}

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
  // A public endpoint that takes cards is what card testers look for: the page's card, debit and
  // debit-completion calls share one counter per client address, kept in the database so that every
  // process of the service counts the same attempts (lib/shared-limiter.ts).
  const cardAttempts = sharedLimiter(ctx.db, ctx.engine, { name: 'pay-card-addr', points: ctx.config.limits.payCardAttemptsPerAddressPerMinute, windowSeconds: 60 });
  const limitCardAttempts = async (request: FastifyRequest) => consumeOrRefuse(cardAttempts, limiterKey(request.ip));
  for (const asset of [script, style]) {
    app.get(asset.path, { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
      reply.type(asset.contentType).header('cache-control', 'public, max-age=31536000, immutable').header('x-content-type-options', 'nosniff').send(asset.body),
    );
  }

  // The service's front door: a person who opens the base URL lands on the API reference.
  app.get('/', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) => reply.redirect('/docs', 302));
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    app.get(path, { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(FAVICON_SVG),
    );
  }

  app.get(
    '/pay/:checkout_id',
    {
      config: PUBLIC,
      schema: {
        summary: 'The hosted checkout page (HTML)',
        description: "`?lang=pt`, `es` or `en`; otherwise the browser's Accept-Language, otherwise the checkout country's language (Spanish for MX, Portuguese for BR).",
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
      const lang = { query: request.query.lang, acceptLanguage: request.headers['accept-language'] };
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
        version: pageVersion(session, await pixCodePending(ctx, session)),
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
        summary: 'Start a code attempt: PIX, boleto, PicPay, OXXO, PAYNET or SPEI (multi-method selection screen)',
        description:
          "A boleto's `payer` (name, CPF or CNPJ, address with CEP) is kept on the session and registered with the boleto; in live mode a boleto registered with a bank is refused without one (03.01.0007).",
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        body: CodeAttemptBody,
        response: { 200: Type.Object({ payment_token: Type.String(), status: Type.String() }), ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request) => {
      const given = request.body.payer;
      const checked = given ? checkPayer({ name: given.name, taxId: given.tax_id, street: given.street, number: given.number, complement: given.complement, district: given.district, city: given.city, state: given.state, postalCode: given.postal_code }, PAGE_PAYER_FIELDS) : null;
      if (checked && !checked.ok) throw ApiError.fields(checked.failures);
      const { session, payment } = await startCodeAttempt(ctx, request.params.checkout_id, request.body.method, checked?.payer);
      return { payment_token: payment.payment_token, status: session.status };
    },
  );

  app.post(
    '/pay/:checkout_id/debit',
    {
      config: PUBLIC,
      onRequest: limitCardAttempts,
      schema: {
        summary: 'Pay a checkout session by debit card with 3DS (the page debit form)',
        description:
          'Authenticates the card with 3DS. Frictionless: the payment is sent at once (status SENT). Challenge: answers challenge_url, which the page shows in a frame; when the challenge is answered the page calls …/debit/complete.',
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        body: DebitAttemptBody,
        response: { 200: DebitAttemptResponse, ...errorResponses(400, 404, 409, 422, 429, 502) },
      },
    },
    async (request) => debitAnswer(await startDebitAttempt(ctx, request.params.checkout_id, request.body, `${request.protocol}://${request.host}`)),
  );

  app.post(
    '/pay/:checkout_id/debit/complete',
    {
      config: PUBLIC,
      onRequest: limitCardAttempts,
      schema: {
        summary: 'Pay with the debit card authenticated by the challenge inside the page',
        tags: ['Checkout page'],
        params: CheckoutIdParams,
        response: { 200: DebitAttemptResponse, ...errorResponses(404, 409, 422, 429, 502) },
      },
    },
    async (request) => debitAnswer(await completeDebitAttempt(ctx, request.params.checkout_id)),
  );

  app.post(
    '/pay/:checkout_id/card',
    {
      config: PUBLIC,
      onRequest: limitCardAttempts,
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
      const { session, payment } = await payWithCard(ctx, request.params.checkout_id, request.body, { ipAddress: clientAddress(request.ip) });
      return { payment_token: payment.payment_token, status: session.status, transaction_status: payment.status };
    },
  );
}

/** The client's address as the payer's: an IPv4 address a dual-stack socket reports as `::ffff:a.b.c.d` is written plainly. */
function clientAddress(ip: string): string | undefined {
  const plain = ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  return isIP(plain) === 0 ? undefined : plain;
}
