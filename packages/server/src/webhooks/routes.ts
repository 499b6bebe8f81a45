import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { getEvent } from './get-event';
import { listEvents } from './list-events';
import { retryEvent } from './retry-event';
import { rotateSecret } from './rotate-secret';
import { EventIdParams, EventPageSchema, EventSchema, ListEventsQuery, RotatedSecretSchema } from './schemas';

/**
 * The callback event log and the signing secret (contract, Callbacks). Thin: schema, one call.
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
    async (request) => listEvents(ctx.db, principalOf(request).merchantId, request.query),
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
}
