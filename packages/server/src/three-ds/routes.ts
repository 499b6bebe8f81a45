import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { PaymentResponse } from '../payments/schemas';
import { paymentResponse } from '../payments/payment-response';
import { answerChallenge } from './answer-challenge';
import { challengeLangOf, renderChallengePage } from './challenge-page';
import { loadClientBundle } from './client-bundle';
import { payWithAuthentication } from './pay-with-authentication';
import { AuthenticationAnswer, AuthenticationBody, ChallengeBody, ChallengeParams, ThreeDsPaymentBody } from './schemas';
import { startAuthentication } from './start-authentication';
import { consumeOrRefuse, limiterKey, sharedLimiter } from '../lib/shared-limiter';

/** An Origin header worth recording: scheme, host and port only, so it is safe in a CSP and in postMessage. */
const PLAIN_ORIGIN = /^https?:\/\/[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$/;

/**
 * CORS of the library's endpoint. Any merchant page may call it, because the contract id it sends is
 * public and the call carries no credentials: no cookies are read and
 * `Access-Control-Allow-Credentials` is never sent, so a page can do nothing here that it could not
 * do from a server. Only POST with a JSON body is allowed. Set before the body is read so that
 * refusals (schema errors, an unknown contract) are readable by the library too.
 */
async function allowAnyOrigin(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('access-control-allow-origin', '*');
}

/**
 * The 3DS library and its server side: the script, the simulated 3DS server's authentication
 * endpoint (called cross-origin from merchant pages), the issuer challenge page and its answer, and
 * the merchant's authenticated payment. docs/3ds.md describes the flow.
 * @example registerThreeDsRoutes(app, ctx);
 */
export function registerThreeDsRoutes(app: App, ctx: AppContext): void {
  // Build the library while the service starts, so the first page that loads it does not wait.
  loadClientBundle().catch((error: unknown) => app.log.error({ err: error }, 'the 3DS library could not be built'));
  // The authentication endpoint is public (a contract id is no secret), so it is limited per address
  // and per contract: a card tester cannot use it at volume, from one address or against one shop.
  const perAddress = sharedLimiter(ctx.db, ctx.engine, { name: '3ds-addr', points: ctx.config.limits.threeDsPerAddressPerMinute, windowSeconds: 60 });
  const perContract = sharedLimiter(ctx.db, ctx.engine, { name: '3ds-contract', points: ctx.config.limits.threeDsPerContractPerMinute, windowSeconds: 60 });

  app.get(
    '/scripts/client-v1.0.min.js',
    { config: { auth: 'public' }, schema: { summary: 'The browser 3DS library', tags: ['3DS'], hide: true } },
    async (request, reply) => {
      const bundle = await loadClientBundle();
      reply
        .header('cache-control', 'public, max-age=3600')
        .header('etag', bundle.etag)
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      if (request.headers['if-none-match'] === bundle.etag) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(bundle.code);
    },
  );

  app.options('/3ds/authentications', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', 'POST')
      .header('access-control-allow-headers', 'content-type')
      .header('access-control-max-age', '600')
      .send(),
  );

  app.post(
    '/3ds/authentications',
    {
      config: { auth: 'public' },
      onRequest: allowAnyOrigin,
      schema: {
        summary: 'Authenticate a card with 3DS (called by the browser library)',
        description:
          'Public: the merchant is identified by contractId. Answers the outcome at once (SUCCESS, UNENROLLED, FAILURE, ERROR) or CHALLENGE with the path of the issuer challenge page.',
        tags: ['3DS'],
        security: [],
        body: AuthenticationBody,
        response: { 200: AuthenticationAnswer, ...errorResponses(400, 422, 429, 502) },
      },
    },
    async (request) => {
      // Counted before any work, per client address and then per contract, in the shared limiter
      // table; a call refused for its address does not spend the contract's allowance.
      await consumeOrRefuse(perAddress, limiterKey(request.ip), 'THREE_DS_RATE_LIMITED');
      await consumeOrRefuse(perContract, limiterKey(request.body.contractId), 'THREE_DS_RATE_LIMITED');
      const origin = request.headers.origin;
      return startAuthentication(ctx, request.body, typeof origin === 'string' && PLAIN_ORIGIN.test(origin) ? origin : null);
    },
  );

  app.get(
    '/3ds/challenges/:id',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'The issuer challenge page (HTML, framed by the library)',
        description: 'English by default; `?lang=pt` for Portuguese, `?lang=es` for Spanish (the hosted checkout asks for its own language).',
        tags: ['3DS'],
        security: [],
        params: ChallengeParams,
        querystring: Type.Object({ lang: Type.Optional(Type.String({ maxLength: 8 })) }),
      },
    },
    async (request, reply) => {
      const page = await renderChallengePage(ctx, request.params.id, challengeLangOf(request.query.lang));
      return reply
        .header('content-security-policy', page.contentSecurityPolicy)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .type('text/html; charset=utf-8')
        .send(page.html);
    },
  );

  app.post(
    '/3ds/challenges/:id',
    {
      config: { auth: 'public' },
      schema: {
        summary: "The customer's answer to the issuer challenge (sent by the challenge page)",
        tags: ['3DS'],
        security: [],
        params: ChallengeParams,
        body: ChallengeBody,
        response: { 200: AuthenticationAnswer, ...errorResponses(400, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return answerChallenge(ctx, request.params.id, request.body.code);
    },
  );

  app.post(
    '/checkout/3ds/payment',
    {
      schema: {
        summary: 'Pay with a 3DS authentication',
        description:
          "Takes {id, paymentToken} from the library's onSuccess, and the merchant's own amount and reference_id, which must match the authentication; answers like sendPayment, and the payment carries the 3DS data. Each authentication pays once, within an hour.",
        tags: ['3DS'],
        body: ThreeDsPaymentBody,
        response: { 200: PaymentResponse, ...errorResponses(400, 401, 404, 409, 422, 502) },
      },
    },
    async (request) => paymentResponse(ctx, request, await payWithAuthentication(ctx, principalOf(request).merchantId, request.body)),
  );
}

