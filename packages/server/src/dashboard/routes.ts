import { idempotencyKeyOf } from '../http/idempotency';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Authenticator } from '../auth/authenticate';
import type { LoginLimits } from '../auth/login-limits';
import { payPayment } from '../sandbox/pay-payment';
import { getCheckout } from '../checkout/get-checkout';
import { CHECKOUT_STATUSES } from '../checkout/states';
import { advanceMerchantClock, merchantNow } from '../clock/merchant-clock';
import { principalOf, type App, type AppContext } from '../context';
import { ApiError } from '../http/errors';
import { sendJson } from '../http/json-text';
import { StringEnum } from '../http/schema-kit';
import type { BackgroundSweep } from '../jobs/worker-signal';
import { cancelPreAuthorization } from '../payments/cancel';
import { capturePayment } from '../payments/capture';
import { PAYMENT_STATUSES } from '../payments/states';
import { transactionDetailsJson } from '../payment-details/transaction-details';
import { getPayout } from '../payouts/get-payout';
import { PAYOUT_STATUSES } from '../payouts/states';
import { PROCESSOR_OPERATIONS } from '../processor/processor';
import { requestRefund } from '../refunds/request-refund';
import { createReport } from '../reports/create-report';
import { exportReport } from '../reports/export-report';
import { AGGREGATIONS_BY_TYPE, FIELD_CATALOGUE, OPERATORS_BY_TYPE } from '../reports/field-catalogue';
import { listReports } from '../reports/list-reports';
import { readReport } from '../reports/read-report';
import { DATE_WRAPS, DYNAMIC_VALUES, REPORT_LIMITS, REPORT_TYPE_NAMES } from '../reports/report-definition';
import { ReportBody, ReportIdParams } from '../reports/schemas';
import { updateReport } from '../reports/update-report';
import { setProcessorFault } from '../sandbox/processor-faults';
import { getSubscription } from '../subscriptions/get-subscription';
import { listCharges } from '../subscriptions/list-charges';
import { listSubscriptions } from '../subscriptions/list-subscriptions';
import { SUBSCRIPTION_STATUSES } from '../subscriptions/states';
import { presentSubscription } from '../subscriptions/subscription-record';
import { getEvent } from '../webhooks/get-event';
import { listEvents } from '../webhooks/list-events';
import { retryEvent } from '../webhooks/retry-event';
import { rotateSecret } from '../webhooks/rotate-secret';
import { ListEventsQuery } from '../webhooks/schemas';
import { DASHBOARD_CSP, loadDashboardAssets, renderShell } from './assets';
import { registerDashboardBalance } from './balance-routes';
import { registerDashboardDisputes } from './dispute-routes';
import { registerDashboardSettlements } from './settlement-routes';
import { listCheckouts, listPayments, listPayouts, overview } from './queries';
import { DEFAULT_TIME_ZONE, setMerchantTimeZone } from './time-zone';
import { closeSession, csrfMatches, openSession, resumeSession, SESSION_COOKIE, type DashboardSession } from './sessions';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Dashboard routes open without a session: the page, its assets and sign-in. */
    dashboardOpen?: boolean;
  }
}

const API = '/dashboard/api';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD on the merchant clock' });
const Paging = {
  page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
  size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
};
const TokenParams = Type.Object({ payment_token: Type.String({ minLength: 1, maxLength: 64 }) });
const Amount = Type.Number({ exclusiveMinimum: 0, description: 'decimal amount, as in the API' });

/**
 * The merchant dashboard (docs/dashboard.md): the page at `/dashboard`, its bundled assets, and the
 * JSON endpoints under `/dashboard/api/*` that it calls. Sign-in exchanges the API key and secret for
 * a server-side session held in an HttpOnly, SameSite=Strict cookie; every other endpoint needs that
 * session, and every change also needs the session's CSRF token in `X-CSRF-Token` and, when the
 * browser sends one, an `Origin` of this service. Actions call the same domain verbs as the API
 * (requestRefund, capturePayment, retryEvent, …), so the rules are the API's.
 * Sign-in counts in the same limits as `POST /auth` (auth/login-limits.ts), shared by every process.
 * @example await registerDashboardRoutes(app, ctx, { background, logins });
 */
export async function registerDashboardRoutes(app: App, ctx: AppContext, options: { background: BackgroundSweep | undefined; logins: LoginLimits }): Promise<void> {
  const { background, logins } = options;
  const authenticator = new Authenticator(ctx.db);
  const sessions = new WeakMap<FastifyRequest, DashboardSession>();
  // Build the bundle while the service starts, so the first visit does not wait for it.
  loadDashboardAssets().catch((error: unknown) => app.log.error({ err: error }, 'the dashboard could not be built'));

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>() as App;
    await scope.register(cookie);
    // The dashboard authenticates with its session cookie, not X-Auth-Token: the shared auth hook
    // lets these routes through and the hook below decides.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), auth: 'public' };
      route.schema = { ...route.schema, hide: true };
    });
    scope.addHook('onRequest', async (request) => {
      if (request.routeOptions.url === undefined || request.routeOptions.config?.dashboardOpen) return;
      checkOrigin(request);
      const session = await resumeSession(ctx.db, request.cookies[SESSION_COOKIE]);
      if (!session) throw new ApiError('ACCESS_DENIED');
      if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, request.headers['x-csrf-token'])) throw new ApiError('DASHBOARD_CSRF_INVALID');
      request.principal = { userId: session.userId, merchantId: session.merchantId };
      sessions.set(request, session);
    });
    scope.addHook('onSend', (_request, reply, payload, done) => {
      // Answers carry a merchant's data: no cache may keep them.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      done(null, payload);
    });

    registerPage(scope, ctx);

    const sessionView = (session: DashboardSession, merchant: { id: string; name: string; time_zone: string | null }) => ({
      merchant: { id: merchant.id, name: merchant.name },
      mode: ctx.config.mode,
      time_zone: merchant.time_zone ?? DEFAULT_TIME_ZONE,
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt.toISOString(),
    });
    const merchantOf = (merchantId: string) => ctx.db.selectFrom('merchants').select(['id', 'name', 'time_zone']).where('id', '=', merchantId).executeTakeFirstOrThrow();

    scope.post(
      `${API}/session`,
      {
        config: { dashboardOpen: true },
        onRequest: async (request) => checkOrigin(request),
        schema: {
          body: Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: 200 }), apiSecret: Type.String({ minLength: 1, maxLength: 200 }) }),
        },
      },
      async (request, reply) => {
        const user = await logins.signIn(authenticator, request.body.apiKey, request.body.apiSecret, request.ip);
        // A session id presented at sign-in is dropped, so a planted cookie never becomes a live session.
        await closeSession(ctx.db, request.cookies[SESSION_COOKIE]);
        const { sessionId, session } = await openSession(ctx.db, { userId: user.id, merchantId: user.merchant_id });
        setSessionCookie(request, reply, sessionId);
        return sessionView(session, await merchantOf(user.merchant_id));
      },
    );

    scope.get(`${API}/session`, async (request) => {
      const session = sessions.get(request)!;
      return sessionView(session, await merchantOf(session.merchantId));
    });

    // The merchant's time zone, in which the page shows times (time-zone.ts).
    scope.put(`${API}/settings`, { schema: { body: Type.Object({ time_zone: Type.String({ minLength: 1, maxLength: 64 }) }) } }, async (request) => ({
      time_zone: await setMerchantTimeZone(ctx.db, principalOf(request).merchantId, request.body.time_zone),
    }));

    scope.delete(`${API}/session`, async (request, reply) => {
      await closeSession(ctx.db, request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
      return reply.code(204).send();
    });

    scope.get(
      `${API}/overview`,
      { schema: { querystring: Type.Object({ from: Type.Optional(IsoDate), to: Type.Optional(IsoDate), currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })) }) } },
      async (request) => overview(ctx.readDb, principalOf(request).merchantId, request.query),
    );

    // Payments: search, one payment, and its actions.
    scope.get(
      `${API}/payments`,
      {
        schema: {
          querystring: Type.Object({
            q: Type.Optional(Type.String({ maxLength: 200 })),
            status: Type.Optional(StringEnum(PAYMENT_STATUSES)),
            method: Type.Optional(Type.String({ pattern: '^[A-Z_]{1,20}$' })),
            from: Type.Optional(IsoDate),
            to: Type.Optional(IsoDate),
            ...Paging,
          }),
        },
      },
      async (request) => listPayments(ctx.readDb, principalOf(request).merchantId, request.query),
    );
    scope.get(`${API}/payments/:payment_token`, { schema: { params: TokenParams } }, async (request, reply) =>
      sendJson(reply, await transactionDetailsJson(ctx, principalOf(request).merchantId, request.params.payment_token)),
    );
    scope.post(`${API}/payments/:payment_token/capture`, { schema: { params: TokenParams, body: Type.Object({ amount: Amount }) } }, async (request) => {
      return capturePayment(ctx, principalOf(request).merchantId, request.params.payment_token, request.body.amount, { idempotencyKey: idempotencyKeyOf(request) });
    });
    scope.post(`${API}/payments/:payment_token/cancel`, { schema: { params: TokenParams } }, async (request) => {
      return cancelPreAuthorization(ctx, principalOf(request).merchantId, request.params.payment_token, { idempotencyKey: idempotencyKeyOf(request) });
    });
    scope.post(
      `${API}/payments/:payment_token/refund`,
      { schema: { params: TokenParams, body: Type.Object({ amount: Type.Optional(Amount), pix_key: Type.Optional(Type.String({ minLength: 1, maxLength: 77 })) }) } },
      async (request) => {
        const refund = await requestRefund(ctx, principalOf(request).merchantId, { payment_token: request.params.payment_token, ...request.body });
        return { refund_id: Number(refund.refund_id), refund_status: refund.status };
      },
    );

    const StatusPage = (statuses: readonly string[]) => ({ schema: { querystring: Type.Object({ status: Type.Optional(StringEnum(statuses as [string, ...string[]])), ...Paging }) } });
    scope.get(`${API}/checkouts`, StatusPage(CHECKOUT_STATUSES), async (request) => listCheckouts(ctx.readDb, principalOf(request).merchantId, request.query));
    scope.get(`${API}/checkouts/:checkout_id`, { schema: { params: Type.Object({ checkout_id: Type.String({ maxLength: 64 }) }) } }, async (request) =>
      getCheckout(ctx, principalOf(request).merchantId, request.params.checkout_id),
    );

    scope.get(`${API}/subscriptions`, StatusPage(SUBSCRIPTION_STATUSES), async (request) => {
      const { rows, total } = await listSubscriptions(ctx, principalOf(request).merchantId, request.query as never);
      return { rows: rows.map(presentSubscription), total, page: request.query.page, size: request.query.size };
    });
    scope.get(
      `${API}/subscriptions/:subscription_id`,
      { schema: { params: Type.Object({ subscription_id: Type.String({ maxLength: 64 }) }), querystring: Type.Object(Paging) } },
      async (request) => {
        const merchantId = principalOf(request).merchantId;
        const subscription = await getSubscription(ctx, merchantId, request.params.subscription_id);
        const charges = await listCharges(ctx, merchantId, subscription.id, request.query);
        return { subscription: presentSubscription(subscription), charges: { rows: charges.content, total: charges.total, page: request.query.page, size: request.query.size } };
      },
    );

    scope.get(`${API}/payouts`, StatusPage(PAYOUT_STATUSES), async (request) => listPayouts(ctx.readDb, principalOf(request).merchantId, request.query));
    scope.get(`${API}/payouts/:tx_id`, { schema: { params: Type.Object({ tx_id: Type.String({ maxLength: 64 }) }) } }, async (request) =>
      getPayout(ctx, principalOf(request).merchantId, request.params.tx_id),
    );

    // Reports: the field catalogue for the editor's choices, list, create, read, edit and export
    // (streamed; the page shows the bytes as they arrive).
    scope.get(`${API}/reports`, { schema: { querystring: Type.Object({ reportName: Type.Optional(Type.String({ maxLength: 200 })), ...Paging }) } }, async (request) =>
      listReports(ctx.db, principalOf(request).merchantId, request.query),
    );
    scope.get(`${API}/report-fields`, async () => reportCatalogue());
    scope.post(`${API}/reports`, { schema: { body: ReportBody } }, async (request, reply) =>
      reply.code(201).send(await createReport(ctx.db, principalOf(request).merchantId, request.body)),
    );
    scope.get(`${API}/reports/:reportId`, { schema: { params: ReportIdParams } }, async (request) => readReport(ctx.db, principalOf(request).merchantId, request.params.reportId));
    scope.put(`${API}/reports/:reportId`, { schema: { params: ReportIdParams, body: ReportBody } }, async (request) =>
      updateReport(ctx.db, principalOf(request).merchantId, request.params.reportId, request.body),
    );
    scope.get(
      `${API}/reports/:reportId/export`,
      { schema: { params: ReportIdParams, querystring: Type.Object({ format: StringEnum(['csv', 'json'] as const) }) } },
      async (request, reply) => {
        const run = await exportReport(ctx, principalOf(request).merchantId, request.params.reportId, request.query.format);
        return reply.type(run.contentType).header('content-disposition', `attachment; filename="${run.filename}"`).send(run.stream);
      },
    );

    // Callbacks: the event log, resend and the signing secret.
    scope.get(`${API}/events`, { schema: { querystring: ListEventsQuery } }, async (request) => listEvents(ctx.readDb, principalOf(request).merchantId, request.query));
    const EventParams = { schema: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) } };
    scope.get(`${API}/events/:id`, EventParams, async (request) => getEvent(ctx.db, principalOf(request).merchantId, request.params.id));
    scope.post(`${API}/events/:id/retry`, EventParams, async (request) => retryEvent(ctx, principalOf(request).merchantId, request.params.id));
    scope.post(`${API}/webhook-secret/rotate`, async (request) => rotateSecret(ctx, principalOf(request).merchantId));

    // Balance: the figures, money becoming available by day, the balance transactions (balance-routes.ts);
    // settlements and their pause (settlement-routes.ts).
    registerDashboardBalance(scope, ctx, API);
    registerDashboardSettlements(scope, ctx, API);

    // Disputes: the list, one dispute, its evidence, submit and accept (dispute-routes.ts).
    await registerDashboardDisputes(scope, ctx, API);

    if (ctx.config.mode === 'sandbox') registerSandboxControls(scope, ctx, background);
  });
}

/**
 * What the report editor offers: the catalogue's fields (without their SQL) and, per field type, the
 * filter and aggregation operators the rules accept (reports/validate-report.ts), so the form offers
 * only valid choices and the server stays the one judge of a definition.
 */
function reportCatalogue() {
  return {
    report_types: REPORT_TYPE_NAMES,
    fields: FIELD_CATALOGUE.map((f) => ({ id: f.id, name: f.name, group: f.group, type: f.type, values: f.values ?? null, report_types: f.reportTypes, masked: f.masked ?? false })),
    operators_by_type: OPERATORS_BY_TYPE,
    aggregations_by_type: AGGREGATIONS_BY_TYPE,
    dynamic_values: DYNAMIC_VALUES,
    wraps: DATE_WRAPS,
    limits: { name: REPORT_LIMITS.nameLength, folder: REPORT_LIMITS.folderLength, alias: REPORT_LIMITS.aliasLength, value: REPORT_LIMITS.valueLength, columns: REPORT_LIMITS.columns, filters: REPORT_LIMITS.filters, orderings: REPORT_LIMITS.orderings },
  };
}

/** The page and its two assets: public, since they hold no data; the data comes from the API above. */
function registerPage(scope: App, ctx: AppContext): void {
  const page = (operator: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const assets = await loadDashboardAssets();
    const accepted = request.headers['accept-language'] ?? '';
    const lang = /^pt\b/i.test(accepted) ? 'pt-BR' : /^es\b/i.test(accepted) ? 'es' : 'en';
    // Signed out, the merchant's page carries the sign-in form itself, so what is typed before the script
    // loads stays. The operator view signs in with the admin token, in the script only.
    const signedOut = !operator && (await resumeSession(ctx.db, request.cookies[SESSION_COOKIE])) === null;
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', DASHBOARD_CSP)
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .send(renderShell(assets, lang, signedOut));
  };
  scope.get('/dashboard', { config: { dashboardOpen: true } }, page(false));
  scope.get('/dashboard/', { config: { dashboardOpen: true } }, page(false));
  // The operator view: the same page, which signs in with the admin token and reads the admin API.
  scope.get('/dashboard/operator', { config: { dashboardOpen: true } }, page(true));
  scope.get('/dashboard/assets/:file', { config: { dashboardOpen: true }, schema: { params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } }, async (request, reply) => {
    const assets = await loadDashboardAssets();
    const asset = [assets.script, assets.style].find((a) => a.path === `/dashboard/assets/${request.params.file}`);
    if (!asset) throw new ApiError('ROUTE_NOT_FOUND');
    return reply
      .type(asset.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });
}

function registerSandboxControls(scope: App, ctx: AppContext, background: BackgroundSweep | undefined): void {
  // Both clocks, so the page can say each: the merchant's (the sandbox clock) and real time.
  scope.get(`${API}/sandbox/clock`, async (request) => ({ now: (await merchantNow(ctx.db, principalOf(request).merchantId)).toISOString(), real_now: new Date().toISOString() }));
  scope.post(
    `${API}/sandbox/clock/advance`,
    { schema: { body: Type.Object({ seconds: Type.Integer({ minimum: 0, maximum: 10 * 366 * 86_400 }) }) } },
    async (request) => {
      const now = await advanceMerchantClock(ctx.db, principalOf(request).merchantId, request.body.seconds);
      await background?.sweep();
      return { now: now.toISOString() };
    },
  );
  scope.post(`${API}/sandbox/payments/:payment_token/pay`, { schema: { params: TokenParams } }, async (request) => {
    const payment = await payPayment(ctx, principalOf(request).merchantId, request.params.payment_token);
    return { payment_token: payment.payment_token, method: payment.method, transaction_status: payment.status };
  });
  scope.post(
    `${API}/sandbox/faults`,
    {
      schema: {
        body: Type.Object({
          operation: StringEnum(PROCESSOR_OPERATIONS),
          fault: StringEnum(['UNAVAILABLE', 'TIMEOUT'] as const),
          times: Type.Integer({ minimum: 0, maximum: 1000 }),
        }),
      },
    },
    async (request) => setProcessorFault(ctx.db, principalOf(request).merchantId, request.body.operation, request.body.fault, request.body.times),
  );
}

/**
 * Refuses a request that a browser sent from another site's page. SameSite=Strict already keeps the
 * cookie off such requests; this also covers sign-in, which has no cookie yet (login CSRF).
 */
function checkOrigin(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== request.host) throw new ApiError('DASHBOARD_ORIGIN_REFUSED');
}

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, sessionId: string): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
  });
}
