import { ipCountries } from './lib/ip-country';
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import { registerApiReference } from './http/api-reference';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { registerAccessRoutes } from './admin/access-routes';
import { registerBoletoFileRoutes } from './admin/boleto-files';
import { registerAdminRoutes, registerFeePlanRoute } from './admin/routes';
import { registerStuckOperations } from './admin/stuck-operations';
import { registerReconciliationRoutes } from './reconciliation/routes';
import { LoginLimits } from './auth/login-limits';
import { registerAuthRoutes } from './auth/routes';
import type { App, AppContext } from './context';
import { installAuthHook } from './auth/auth-hook';
import { frameworkErrorAnswer, installErrorHandler } from './http/error-handler';
import { installIdempotency } from './http/idempotency';
import { installMetrics } from './http/metrics';
import { installFramePolicy } from './http/frame-policy';
import { finishOpenApi } from './http/openapi';
import { validatorCompiler } from './http/validation';
import { installRequestBounds, trackRouteMethods } from './http/request-bounds';
import { installSecurityHeaders, securityHeadersFor } from './http/security-headers';
import { installCallbackTargetCheck } from './webhooks/callback-targets';
import { callbackWebhooks } from './webhooks/event-payloads';
import { loggerOptions } from './logger';
import { registerMeRoute } from './auth/me-route';
import { registerMerchantRoutes } from './merchants/routes';
import { registerSystemRoutes } from './system/routes';
import { registerCheckoutRoutes } from './checkout/routes';
import { registerCheckoutPageRoutes } from './checkout-page/routes';
import { registerPaymentRoutes } from './payments/routes';
import { registerPaymentDetailsRoutes } from './payment-details/routes';
import { registerRefundRoutes } from './refunds/routes';
import { registerDisputeRoutes } from './disputes/routes';
import { registerBalanceRoutes } from './balance/routes';
import { registerSettlementRoutes } from './settlements/routes';
import { registerPayoutRoutes } from './payouts/routes';
import { registerDlocalNotificationRoutes } from './payouts/dlocal-notifications';
import { registerReportRoutes } from './reports/routes';
import type { Background } from './background';
import { registerSandboxRoutes } from './sandbox/routes';
import { registerSubscriptionRoutes } from './subscriptions/routes';
import { registerVaultRoutes } from './vault/routes';
import { registerWebhookRoutes } from './webhooks/routes';
import { registerThreeDsRoutes } from './three-ds/routes';
import { threeDsClaims } from './three-ds/verify-authentication';
import { registerDashboardRoutes } from './dashboard/routes';
import { registerConnectorRoutes } from './connectors/routes';
import { registerPixWebhook } from './checkout/pix-webhook';

export interface BuildAppOptions {
  /** This process's background worker, if it runs one (the sandbox clock sweeps through it). */
  background?: Background | undefined;
  /** A ready logger (the service's), or `false` for none; defaults to pino per loggerOptions. */
  logger?: FastifyBaseLogger | false;
}

/** Trusts the nearest `hops` proxies, whatever their addresses (a fixed chain of load balancers). */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * Builds the Fastify application with every route, hook and schema, without listening. main.ts
 * listens; tests start it on an ephemeral port and talk real HTTP to it.
 * @example
 * const app = await buildApp(ctx);
 * await app.listen({ port: 0 });
 */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<App> {
  // The IP country database is read at start, so a configured file that is not one stops the start.
  ipCountries(ctx.config.geoipDatabase);
  const app = Fastify({
    ...(options.logger === undefined
      ? { logger: loggerOptions(ctx.config.logLevel) }
      : options.logger === false
        ? { logger: false }
        : { loggerInstance: options.logger }),
    bodyLimit: ctx.config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    },
    return503OnClosing: true,
    // Behind a load balancer, request.ip (rate limits, logs) and request.protocol (absolute URLs) come
    // from X-Forwarded-* only for the proxies this setting trusts (docs/operations.md).
    trustProxy: typeof ctx.config.trustProxy === 'number' ? trustHops(ctx.config.trustProxy) : ctx.config.trustProxy,
    // A malformed URL or an over-long path parameter never reaches a route; answer them, too, in
    // the standard error body.
    frameworkErrors: frameworkErrorAnswer(securityHeadersFor(ctx.config)),
    ajv: { customOptions: {} },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  app.setValidatorCompiler(validatorCompiler);
  // JSON is the API's body format (and form bodies for POST /auth only); plain text is not accepted.
  app.removeContentTypeParser('text/plain');
  installRequestBounds(app, ctx.config);
  const allowedMethods = trackRouteMethods(app);
  installSecurityHeaders(app, ctx.config);
  // Hooks that run on every request are callback-style: no promise per request where nothing awaits.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Colibri payments API',
        version: ctx.version,
        description: 'Payments service: tokens, hosted checkout, card payments, 3DS, subscriptions, payouts, refunds, reports.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          authToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
          adminToken: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ authToken: [] }],
    },
    transformObject: (documentObject) => finishOpenApi('openapiObject' in documentObject ? documentObject.openapiObject : documentObject, { webhooks: callbackWebhooks() }),
  });
  await registerApiReference(app);

  installErrorHandler(app, ctx, allowedMethods);
  installAuthHook(app, ctx);
  installIdempotency(app, ctx);
  installFramePolicy(app);
  installCallbackTargetCheck(app, ctx.config);

  const registry = installMetrics(app, ctx);
  registerSystemRoutes(app, ctx, registry);
  // One set of login counters for both doors that take an API key and secret.
  const logins = new LoginLimits(ctx);
  await registerAuthRoutes(app, ctx, logins);
  registerMeRoute(app, ctx);
  registerMerchantRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerFeePlanRoute(app, ctx);
  registerStuckOperations(app, ctx, registry);
  registerBoletoFileRoutes(app, ctx);
  await registerReconciliationRoutes(app, ctx, registry);
  registerAccessRoutes(app, ctx);
  registerVaultRoutes(app, ctx);
  // sendPayment claims 3DS data through 3DS's claims: payments declares them, 3DS implements them.
  registerPaymentRoutes(app, ctx, threeDsClaims);
  registerPaymentDetailsRoutes(app, ctx);
  registerCheckoutRoutes(app, ctx);
  registerCheckoutPageRoutes(app, ctx);
  registerRefundRoutes(app, ctx);
  await registerDisputeRoutes(app, ctx);
  registerBalanceRoutes(app, ctx);
  registerSettlementRoutes(app, ctx);
  registerPayoutRoutes(app, ctx);
  // dLocal's payout notifications: signed over the raw body, so they have a parser of their own.
  await registerDlocalNotificationRoutes(app, ctx);
  registerSubscriptionRoutes(app, ctx);
  registerThreeDsRoutes(app, ctx);
  registerReportRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerConnectorRoutes(app, ctx);
  // The PSP's PIX webhook: a mutual-TLS listener of its own, started and stopped with the app.
  registerPixWebhook(app, ctx);
  if (ctx.config.mode === 'sandbox') registerSandboxRoutes(app, ctx, options.background);
  await registerDashboardRoutes(app, ctx, { background: options.background, logins });

  return app;
}
