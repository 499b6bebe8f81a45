import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schema-kit';
import { EVENT_TYPES } from './schemas';

/** Request and response schemas of the merchant's webhook endpoints (docs/callbacks.md, "Webhook endpoints"). */

/** The most endpoints a merchant may have: each event is sent to every matching one, so they are bounded. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/** What an endpoint's filter may name: an event type, or `*` for every type (those of today and those to come). */
export const ENDPOINT_EVENT_FILTERS = [...EVENT_TYPES, '*'] as const;

const EndpointUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://', description: 'absolute http(s) URL that receives the callbacks' });
const EnabledEvents = Type.Array(StringEnum(ENDPOINT_EVENT_FILTERS), {
  minItems: 1,
  maxItems: ENDPOINT_EVENT_FILTERS.length,
  description: 'the event types sent to this endpoint, or ["*"] for every type',
});
const Description = Type.String({ maxLength: 200, description: "the merchant's own note, e.g. what the endpoint is for" });

export const CreateEndpointBody = Type.Object({
  url: EndpointUrl,
  enabled_events: EnabledEvents,
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ default: true, description: 'false creates it disabled' })),
});
export type CreateEndpointInput = Static<typeof CreateEndpointBody>;

/** A change: the fields given are changed, the others kept (an empty body changes nothing). */
export const UpdateEndpointBody = Type.Object({
  url: Type.Optional(EndpointUrl),
  enabled_events: Type.Optional(EnabledEvents),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  enabled: Type.Optional(Type.Boolean({ description: 'false stops every callback to it (those pending are given up); true resumes with the next event' })),
});
export type UpdateEndpointInput = Static<typeof UpdateEndpointBody>;

export const EndpointIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    enabled_events: Type.Array(StringEnum(ENDPOINT_EVENT_FILTERS)),
    enabled: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointResource = Static<typeof WebhookEndpointSchema>;

export const CreatedEndpointSchema = Type.Object(
  {
    ...WebhookEndpointSchema.properties,
    webhook_secret: Type.String({ description: "the endpoint's own whsec_… signing secret, shown only here (and at each rotation)" }),
  },
  { title: 'WebhookEndpointCreated' },
);

export const EndpointListSchema = Type.Object(
  { endpoints: Type.Array(WebhookEndpointSchema, { description: `oldest first; at most ${MAX_WEBHOOK_ENDPOINTS}` }) },
  { title: 'WebhookEndpointList' },
);
