import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';

const MerchantResource = Type.Object(
  {
    merchant_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    contract_id: Type.String({ description: 'for payments, checkouts and subscriptions' }),
    payout_contract_id: Type.String({ description: 'for payouts' }),
    mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  },
  { title: 'Merchant' },
);

/**
 * `GET /merchant`: the caller's merchant with its contract ids, so that a tool holding only an API
 * key and secret (the `colibri` command line, a dashboard) can make payments and payouts.
 * @example curl -s $BASE/merchant -H "X-Auth-Token: $TOKEN"
 */
export function registerMerchantRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/merchant',
    {
      schema: {
        summary: "The caller's merchant and its contract ids",
        description: 'The contract ids to put in payments, checkouts and payouts, and whether the service runs in sandbox or live mode.',
        tags: ['Authentication'],
        response: { 200: MerchantResource, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      const row = await ctx.db.selectFrom('merchants').select(['id', 'name', 'contract_id', 'payout_contract_id']).where('id', '=', merchantId).executeTakeFirst();
      if (!row) throw new ApiError('NOT_FOUND', 'merchant: not found.');
      return { merchant_id: row.id, name: row.name, contract_id: row.contract_id, payout_contract_id: row.payout_contract_id, mode: ctx.config.mode };
    },
  );
}
