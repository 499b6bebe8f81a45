import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { CreatedEndpointSchema, CreateEndpointBody, EndpointIdParams, EndpointListSchema, MAX_WEBHOOK_ENDPOINTS, UpdateEndpointBody, WebhookEndpointSchema } from './endpoint-schemas';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint } from './endpoints';
import { RotatedSecretSchema } from './schemas';

const tags = ['Callbacks'];

/**
 * The merchant's webhook endpoints (docs/callbacks.md, "Webhook endpoints"). Thin: schema, one call.
 * A URL given here is checked like a notification URL (callback-targets.ts, CALLBACK_URL_FIELDS).
 * @example registerWebhookEndpointRoutes(app, ctx);
 */
export function registerWebhookEndpointRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/webhooks/endpoints',
    {
      schema: {
        summary: 'Register a webhook endpoint',
        description:
          `The endpoint receives every event whose type it lists (or every event with ["*"]), besides the notification URLs of each request, signed with a secret of its own that this answer shows once. At most ${MAX_WEBHOOK_ENDPOINTS} per merchant.`,
        tags,
        body: CreateEndpointBody,
        response: { 201: CreatedEndpointSchema, ...errorResponses(400, 401, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await createEndpoint(ctx, principalOf(request).merchantId, request.body)),
  );

  app.get(
    '/webhooks/endpoints',
    { schema: { summary: "The merchant's webhook endpoints", tags, response: { 200: EndpointListSchema, ...errorResponses(401) } } },
    async (request) => listEndpoints(ctx.db, principalOf(request).merchantId),
  );

  app.get(
    '/webhooks/endpoints/:id',
    { schema: { summary: 'One webhook endpoint', tags, params: EndpointIdParams, response: { 200: WebhookEndpointSchema, ...errorResponses(401, 404) } } },
    async (request) => getEndpoint(ctx.db, principalOf(request).merchantId, request.params.id),
  );

  app.patch(
    '/webhooks/endpoints/:id',
    {
      schema: {
        summary: 'Change a webhook endpoint',
        description: 'Changes the fields given: url (pending callbacks follow it), enabled_events, description, enabled (false gives up the pending callbacks).',
        tags,
        params: EndpointIdParams,
        body: UpdateEndpointBody,
        response: { 200: WebhookEndpointSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => updateEndpoint(ctx.db, principalOf(request).merchantId, request.params.id, request.body),
  );

  app.delete(
    '/webhooks/endpoints/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint',
        description: 'Its secrets go with it; its deliveries stay in the event log, those pending given up.',
        tags,
        params: EndpointIdParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      await deleteEndpoint(ctx.db, principalOf(request).merchantId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/endpoints/:id/secret/rotate',
    {
      schema: {
        summary: "Issue a new signing secret for a webhook endpoint",
        description: "The endpoint's previous secret keeps signing for 24 hours: its callbacks carry both signatures meanwhile.",
        tags,
        params: EndpointIdParams,
        response: { 200: RotatedSecretSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => rotateEndpointSecret(ctx, principalOf(request).merchantId, request.params.id),
  );
}
