import type { Client } from 'openapi-fetch';
import type { BodyOf, Schemas } from './client.js';
import type { paths } from './generated/openapi.js';
import type { CallOptions, PostOptions, RequestOptions } from './transport.js';

type Unwrap = <T>(answer: { data?: T; error?: unknown; response: Response }) => NonNullable<T>;
/** The Colibri client's transport for one call's options (idempotency key, timeout, signal). */
type Via = (options: CallOptions) => { fetch: (request: Request) => Promise<Response> };

/**
 * The merchant's webhook endpoints (docs/callbacks.md, "Webhook endpoints"): URLs that receive every
 * event whose type they list, each signed with a secret of its own. `colibri.webhookEndpoints`.
 * @example
 * const endpoint = await colibri.webhookEndpoints.create({ url: 'https://shop.example/colibri', enabled_events: ['payment.status_changed'] });
 * saveSecret(endpoint.webhook_secret); // shown only here: verifyCallback(body, headers, endpoint.webhook_secret)
 * await colibri.webhookEndpoints.update(endpoint.id, { enabled: false });
 */
/** `client` is read at each call: the Colibri class builds its typed client after its fields. */
export function webhookEndpointsOf(client: () => Client<paths>, unwrap: Unwrap, via: Via) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    /** Registers an endpoint; the answer carries its `webhook_secret`, shown only here. At most 16 per merchant. */
    create: async (body: BodyOf<'createWebhookEndpoint'>, options: PostOptions = {}): Promise<Schemas['WebhookEndpointCreated']> =>
      unwrap(await client().POST('/webhooks/endpoints', { body, ...via(options) })),
    /** The merchant's endpoints, oldest first, without secrets. */
    list: async (options: RequestOptions = {}): Promise<Schemas['WebhookEndpoint'][]> => unwrap(await client().GET('/webhooks/endpoints', via(options))).endpoints,
    get: async (id: string, options: RequestOptions = {}): Promise<Schemas['WebhookEndpoint']> => unwrap(await client().GET('/webhooks/endpoints/{id}', { ...path(id), ...via(options) })),
    /** Changes the fields given: `url`, `enabled_events`, `description`, `enabled` (false gives up its pending callbacks). */
    update: async (id: string, body: BodyOf<'updateWebhookEndpoint'>, options: RequestOptions = {}): Promise<Schemas['WebhookEndpoint']> =>
      unwrap(await client().PATCH('/webhooks/endpoints/{id}', { ...path(id), body, ...via(options) })),
    /** Deletes the endpoint and its secrets; its deliveries stay in the event log. */
    delete: async (id: string, options: RequestOptions = {}): Promise<void> => {
      const answer = await client().DELETE('/webhooks/endpoints/{id}', { ...path(id), ...via(options) });
      if (!answer.response.ok) unwrap(answer);
    },
    /** A new signing secret for the endpoint; the previous one keeps signing for 24 hours. */
    rotateSecret: async (id: string, options: PostOptions = {}): Promise<{ webhook_secret: string }> =>
      unwrap(await client().POST('/webhooks/endpoints/{id}/secret/rotate', { ...path(id), ...via(options) })),
  };
}
