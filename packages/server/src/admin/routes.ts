import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { createMerchant } from '../merchants/create-merchant';
import { UserResourceSchema } from '../auth/user-resource';

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
