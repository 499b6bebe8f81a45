import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { createPayouts } from './create-payouts';
import { getPayout } from './get-payout';
import { CreatePayoutsBody, CreatePayoutsResponse, GetPayoutResponse, PAYOUT_BATCH_MAX_ITEMS, PayoutParams } from './schemas';

/**
 * Payouts to CO, PE and CL bank accounts (docs/payouts.md). Thin: schema, one call, the refresh token.
 * @example registerPayoutRoutes(app, ctx); // POST /payoutTransaction, GET /payoutTransaction/:tx_id
 */
export function registerPayoutRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/payoutTransaction',
    {
      schema: {
        summary: 'Create payouts',
        description: `Validates the whole batch (at most ${PAYOUT_BATCH_MAX_ITEMS} items) before storing anything: one bad item refuses it with 400, naming each failing item and field. Every payout answers CREATED; the outcome follows in GET /payoutTransaction/{tx_id} and callbacks.`,
        tags: ['Payouts'],
        body: CreatePayoutsBody,
        response: { 200: CreatePayoutsResponse, ...errorResponses(400, 401, 413, 422) },
      },
    },
    async (request) => ({
      payoutTransactionResponses: await createPayouts(ctx, principalOf(request).merchantId, request.body.payoutTransactions),
      refresh_token: await refreshToken(ctx, request),
    }),
  );

  app.get(
    '/payoutTransaction/:tx_id',
    {
      schema: {
        summary: 'One payout with its current status',
        description: "Statuses: CREATED, PROCESSING, PAID, REJECTED, CANCELED. Another merchant's payout answers 404.",
        tags: ['Payouts'],
        params: PayoutParams,
        response: { 200: GetPayoutResponse, ...errorResponses(401, 404) },
      },
    },
    async (request) => ({
      ...(await getPayout(ctx, principalOf(request).merchantId, request.params.tx_id)),
      refresh_token: await refreshToken(ctx, request),
    }),
  );
}
