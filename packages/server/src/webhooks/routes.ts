import { principalOf, type App, type AppContext } from '../context';
import { Type } from 'typebox';
import { errorResponses } from '../http/schema-kit';
import { registerWebhookEndpointRoutes } from './endpoint-routes';
import { getEvent } from './get-event';
import { listEvents } from './list-events';
import { retryEvent } from './retry-event';
import { rotateSecret } from './rotate-secret';
import { streamEvents } from './stream-events';
import { EventIdParams, EventPageSchema, EventSchema, ListEventsQuery, RotatedSecretSchema } from './schemas';

/**
 * The callback event log, the signing secret (contract, Callbacks) and the merchant's webhook
 * endpoints (endpoint-routes.ts). Thin: schema, one call.
 * @example registerWebhookRoutes(app, ctx);
 */
export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/webhooks/events',
    {
      schema: {
        summary: "The merchant's events with their callback attempts",
        description: 'Newest first, at most 100 per page (25 by default); filter by type, resource_id, status and creation time; page with next_cursor.',
        tags: ['Callbacks'],
        querystring: ListEventsQuery,
        response: { 200: EventPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => listEvents(ctx.readDb, principalOf(request).merchantId, request.query),
  );

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.get(
    '/webhooks/events/stream',
    {
      schema: {
        summary: "Stream the merchant's events as they happen (server-sent events)",
        description:
          'Each event is one server-sent event whose data is the callback body {id, type, created_at, data}; `colibri listen` forwards them to a local URL. ' +
          'The stream ends when the token expires: reconnect with a new token and Last-Event-ID. Delivery is at least once, keyed by event id (docs/callbacks.md).',
        tags: ['Callbacks'],
        querystring: Type.Object({
          since: Type.Optional(Type.String({ format: 'date-time', description: 'also send the events created at or after this instant (default: only new ones)' })),
        }),
        headers: Type.Object({ 'last-event-id': Type.Optional(Type.String({ format: 'date-time', description: 'the id of the last event received: resume after it' })) }),
        response: errorResponses(400, 401),
      },
    },
    async (request, reply) => {
      const resumeAt = request.headers['last-event-id'] ?? request.query.since;
      await streamEvents(ctx, request, reply, principalOf(request).merchantId, { since: resumeAt ? new Date(resumeAt) : undefined, closing: () => closing });
    },
  );

  app.get(
    '/webhooks/events/:id',
    {
      schema: {
        summary: 'One event with its callback attempts',
        tags: ['Callbacks'],
        params: EventIdParams,
        response: { 200: EventSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getEvent(ctx.db, principalOf(request).merchantId, request.params.id),
  );

  app.post(
    '/webhooks/events/:id/retry',
    {
      schema: {
        summary: 'Deliver an event again now',
        description: 'Sends the callback again to each notification URL, with the same webhook-id; a failure starts the retry schedule over.',
        tags: ['Callbacks'],
        params: EventIdParams,
        response: { 200: EventSchema, ...errorResponses(401, 404, 422) },
      },
    },
    async (request) => retryEvent(ctx, principalOf(request).merchantId, request.params.id),
  );

  app.post(
    '/webhooks/secret/rotate',
    {
      schema: {
        summary: 'Issue a new callback signing secret',
        description: 'The previous secret keeps signing for 24 hours: callbacks carry both signatures meanwhile.',
        tags: ['Callbacks'],
        response: { 200: RotatedSecretSchema, ...errorResponses(401) },
      },
    },
    async (request) => rotateSecret(ctx, principalOf(request).merchantId),
  );

  registerWebhookEndpointRoutes(app, ctx);
}
