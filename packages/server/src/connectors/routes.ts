import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { applyAdyenNotifications } from './adyen/adyen-notifications';
import { deleteMerchantConnector, listMerchantConnectors, setMerchantConnector } from './merchant-connectors';
import { METHODS } from './plan';

const MerchantConnectorSchema = Type.Object({
  merchant_id: Type.String(),
  method: Type.String(),
  connector: Type.String(),
  credential_keys: Type.Array(Type.String()),
  updated_at: Type.String(),
});

const AdyenAmount = Type.Object({ value: Type.Integer(), currency: Type.String({ maxLength: 3 }) });
const AdyenNotificationItem = Type.Object({
  NotificationRequestItem: Type.Object({
    additionalData: Type.Optional(Type.Record(Type.String(), Type.String())),
    amount: AdyenAmount,
    eventCode: Type.String({ maxLength: 64 }),
    eventDate: Type.Optional(Type.String()),
    merchantAccountCode: Type.String({ maxLength: 200 }),
    merchantReference: Type.Optional(Type.String({ maxLength: 200 })),
    originalReference: Type.Optional(Type.String({ maxLength: 64 })),
    pspReference: Type.String({ maxLength: 64 }),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
    success: Type.String({ maxLength: 5 }),
  }),
});

/**
 * Admin routes of merchants' own connectors, and the providers' notification endpoints (Adyen's; the
 * PSP's PIX webhook has a mutual-TLS listener of its own, checkout/pix-webhook.ts).
 */
export function registerConnectorRoutes(app: App, ctx: AppContext): void {
  const params = Type.Object({ merchantId: Type.String({ format: 'uuid' }), method: Type.String({ maxLength: 32 }) });

  app.put(
    '/admin/merchants/:merchantId/connectors/:method',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Set a merchant's own connector for a method",
        description: `Overrides the instance's routing for one merchant and method (${METHODS.join(', ')}). Credentials are encrypted at rest and never shown again; settings not given come from the instance (docs/connectors.md).`,
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        params,
        body: Type.Object({
          connector: Type.String({ minLength: 1, maxLength: 64 }),
          credentials: Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 8192 }), { maxProperties: 32 }),
        }),
        response: { 200: MerchantConnectorSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => setMerchantConnector(ctx, request.params.merchantId, request.params.method, request.body.connector, request.body.credentials),
  );

  app.get(
    '/admin/merchants/:merchantId/connectors',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "A merchant's own connectors",
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        params: Type.Object({ merchantId: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Object({ connectors: Type.Array(MerchantConnectorSchema) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => ({ connectors: await listMerchantConnectors(ctx, request.params.merchantId) }),
  );

  app.delete(
    '/admin/merchants/:merchantId/connectors/:method',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Remove a merchant's own connector for a method",
        tags: ['Admin'],
        security: [{ adminToken: [] }],
        params,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const deleted = await deleteMerchantConnector(ctx, request.params.merchantId, request.params.method);
      if (!deleted) throw new ApiError('NOT_FOUND', 'method: this merchant has no own connector for it.');
      return { deleted };
    },
  );

  app.post(
    '/connectors/adyen/notifications',
    {
      config: { auth: 'public' },
      schema: {
        summary: "Adyen's standard notifications",
        description: 'HMAC-verified per item with the key of the account it names; applied once each; answers `[accepted]` (docs/connectors.md).',
        tags: ['Connectors'],
        body: Type.Object({ live: Type.Optional(Type.String()), notificationItems: Type.Array(AdyenNotificationItem, { minItems: 1, maxItems: 100 }) }),
        response: { 200: Type.String(), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      await applyAdyenNotifications(ctx, request.body.notificationItems.map((entry) => entry.NotificationRequestItem as never));
      return reply.type('text/plain').send('[accepted]');
    },
  );
}
