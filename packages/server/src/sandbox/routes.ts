import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { payPayment } from './pay-payment';
import { SandboxPayResponse } from '../checkout/schemas';
import { advanceMerchantClock, merchantNow } from '../clock/merchant-clock';
import { principalOf, type App, type AppContext } from '../context';
import type { BackgroundSweep } from '../jobs/worker-signal';
import { errorResponses, StringEnum } from '../http/schema-kit';
import { PROCESSOR_OPERATIONS } from '../processor/processor';
import { setProcessorFault } from './processor-faults';
import { assertSandboxOnly } from '../processor/live-mode';
import { closeSandboxDispute, openSandboxDispute } from '../disputes/sandbox-disputes';
import { DisputeItem } from '../disputes/schemas';
import { sandboxSettlementReport } from '../reconciliation/sandbox-report';

const TEN_YEARS_SECONDS = 10 * 366 * 86_400;

/**
 * Sandbox controls (contract, Sandbox controls), registered only in sandbox mode; in live mode these
 * paths do not exist and answer 404.
 */
export function registerSandboxRoutes(app: App, ctx: AppContext, background: BackgroundSweep | undefined): void {
  assertSandboxOnly(ctx.config, 'The sandbox controls');
  const Now = Type.Object({ now: Type.String({ format: 'date-time' }) });

  app.post(
    '/sandbox/clock/advance',
    {
      schema: {
        summary: "Move the caller's merchant clock forward",
        description: 'Every time rule and scheduled job of this merchant follows its clock. Due work runs at once.',
        tags: ['Sandbox'],
        body: Type.Object({ seconds: Type.Integer({ minimum: 0, maximum: TEN_YEARS_SECONDS }) }),
        response: { 200: Now, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const now = await advanceMerchantClock(ctx.db, principalOf(request).merchantId, request.body.seconds);
      // What became due under the new time happens now, not at the next sweep.
      await background?.sweep();
      return { now: now.toISOString() };
    },
  );

  app.get('/sandbox/clock', { schema: { summary: "The caller's merchant clock", tags: ['Sandbox'], response: { 200: Now } } }, async (request) => ({
    now: (await merchantNow(ctx.db, principalOf(request).merchantId)).toISOString(),
  }));

  app.post(
    '/sandbox/payments/:payment_token/pay',
    {
      schema: {
        summary: 'The payer pays a PIX or BOLETO payment',
        description: 'CREATED → PROCESSING → PAID (PIX gets an end_to_end_id), with the capture journal; its checkout session follows (docs/checkout.md).',
        tags: ['Sandbox'],
        params: Type.Object({ payment_token: Type.String({ maxLength: 64 }) }),
        response: { 200: SandboxPayResponse, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => {
      const payment = await payPayment(ctx, principalOf(request).merchantId, request.params.payment_token);
      return {
        payment_token: payment.payment_token,
        method: payment.method,
        transaction_status: payment.status,
        end_to_end_id: payment.end_to_end_id,
        refresh_token: await refreshToken(ctx, request),
      };
    },
  );

  app.post(
    '/sandbox/processor/faults',
    {
      schema: {
        summary: 'Make the simulated processor fail',
        description:
          'The next `times` calls of `operation` for this merchant fail: UNAVAILABLE (the request never reached the processor) or TIMEOUT (the processor acted, the answer was lost). `times: 0` clears the fault.',
        tags: ['Sandbox'],
        body: Type.Object({
          operation: StringEnum(PROCESSOR_OPERATIONS),
          fault: StringEnum(['UNAVAILABLE', 'TIMEOUT'] as const),
          times: Type.Integer({ minimum: 0, maximum: 1000 }),
        }),
        response: { 200: Type.Object({ operation: Type.String(), fault: Type.String(), remaining: Type.Integer() }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { operation, fault, times } = request.body;
      return setProcessorFault(ctx.db, principalOf(request).merchantId, operation, fault, times);
    },
  );

  app.post(
    '/sandbox/payments/:payment_token/dispute',
    {
      schema: {
        summary: 'The acquirer disputes a paid payment',
        description: 'Opens a dispute now (NEEDS_RESPONSE, 7 days to answer): a CHARGEBACK holds the amount and charges the dispute fee, an INQUIRY moves no money (docs/disputes.md).',
        tags: ['Sandbox'],
        params: Type.Object({ payment_token: Type.String({ maxLength: 64 }) }),
        body: Type.Object({
          amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'absent: all that can still be disputed' })),
          reason_code: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'a network reason code; 10.4 (fraud) when absent' })),
          stage: Type.Optional(StringEnum(['INQUIRY', 'CHARGEBACK'] as const)),
        }),
        response: { 200: DisputeItem, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) => openSandboxDispute(ctx, principalOf(request).merchantId, request.params.payment_token, request.body ?? {}),
  );

  app.post(
    '/sandbox/disputes/:dispute_id/close',
    {
      schema: {
        summary: 'The acquirer rules on a dispute under review',
        description: 'WON gives the held amount back to the merchant; LOST leaves it with the processor.',
        tags: ['Sandbox'],
        params: Type.Object({ dispute_id: Type.String({ maxLength: 64 }) }),
        body: Type.Object({ outcome: StringEnum(['WON', 'LOST'] as const) }),
        response: { 200: DisputeItem, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => closeSandboxDispute(ctx, principalOf(request).merchantId, request.params.dispute_id, request.body.outcome),
  );

  app.get(
    '/sandbox/settlement-report',
    {
      schema: {
        summary: "The simulator's settlement report of a day",
        description:
          "Every operation the simulated acquirer settled for the caller's merchant on `date` (UTC, on the merchant clock), in Adyen's Settlement details format: " +
          'sales and captures as Settled lines, refunds as Refunded, with the simulator\'s fees. Import it with POST /admin/reconciliation/imports?processor=sandbox (docs/reconciliation.md).',
        tags: ['Sandbox'],
        querystring: Type.Object({ date: Type.String({ format: 'date', description: 'YYYY-MM-DD' }) }),
        response: errorResponses(400, 401),
      },
    },
    async (request, reply) => {
      const merchantId = principalOf(request).merchantId;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="settlement_detail_report_${request.query.date}.csv"`)
        .send(Readable.from(sandboxSettlementReport(ctx.db, merchantId, request.query.date)));
    },
  );
}
