import { principalOf, type App, type AppContext } from '../context';
import { sendJson } from '../http/json-text';
import { errorResponses } from '../http/schema-kit';
import { PaymentTokenParams, TransactionDetailsResponse } from '../payments/schemas';
import { transactionDetailsJson } from './transaction-details';

/**
 * Transaction details: a payment with its person, card, fees, history and refunds, a read across the
 * domains that sits above payments and refunds (docs/architecture.md, Layers). Thin: schema, one call.
 */
export function registerPaymentDetailsRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/transactionDetails/:payment_token',
    {
      schema: {
        summary: 'Details of one transaction',
        tags: ['Transaction details'],
        params: PaymentTokenParams,
        response: { 200: TransactionDetailsResponse, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => sendJson(reply, await transactionDetailsJson(ctx, principalOf(request).merchantId, request.params.payment_token)),
  );
}
