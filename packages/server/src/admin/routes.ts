import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { createMerchant } from '../merchants/create-merchant';
import { UserResourceSchema } from '../auth/user-resource';
import { FeePlanSchema, saveFeePlan } from '../fees/fee-plan';
import { ApiError } from '../http/errors';

export const CreatedMerchantSchema = Type.Object({
  merchant_id: Type.String({ format: 'uuid' }),
  contract_id: Type.String(),
  payout_contract_id: Type.String(),
  api_key: Type.String(),
  api_secret: Type.String({ description: 'Shown only here; only its hash is stored' }),
  webhook_secret: Type.String({ description: 'Standard Webhooks secret (whsec_…) that signs callbacks' }),
  user: UserResourceSchema,
});

/** `POST /admin/merchants` (contract, Admin), behind the admin bearer token. */
export function registerAdminRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/admin/merchants',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Create a merchant',
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 201: CreatedMerchantSchema, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const merchant = await createMerchant(ctx.db, request.body.name.trim() || request.body.name);
      return reply.code(201).send(merchant);
    },
  );
}

/** `PUT /admin/merchants/<id>/fee-plan`: a merchant's fees (docs/fees.md). */
export function registerFeePlanRoute(app: App, ctx: AppContext): void {
  app.put(
    '/admin/merchants/:merchantId/fee-plan',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Set a merchant's fee plan",
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        params: Type.Object({ merchantId: Type.String({ format: 'uuid' }) }),
        body: FeePlanSchema,
        response: { 200: FeePlanSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const exists = await ctx.db.selectFrom('merchants').select('id').where('id', '=', request.params.merchantId).executeTakeFirst();
      if (!exists) throw new ApiError('NOT_FOUND', 'merchantId: merchant not found.');
      await saveFeePlan(ctx.db, request.params.merchantId, request.body);
      return request.body;
    },
  );
}
