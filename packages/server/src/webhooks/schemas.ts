import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schema-kit';

/** Request and response schemas of the callback endpoints (docs/callbacks.md, "Event log"). */

export const EVENT_TYPES = [
  'payment.status_changed',
  'checkout.status_changed',
  'refund.status_changed',
  'payout.status_changed',
  'subscription_charge.status_changed',
  'dispute.status_changed',
] as const;

/** An event's callback state: `skipped` when its resource named no notification URL and no webhook endpoint took it. */
export const EVENT_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** The largest page of `GET /webhooks/events`, and the page size when none is asked for. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt of this delivery' }),
  attempted_at: Timestamp,
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: "the receiver's HTTP status; null when none came" }),
  latency_ms: Type.Integer({ description: 'from the start of the attempt to the end of the answer, or to the failure' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why the attempt failed; null when delivered' }),
  result: StringEnum(['delivered', 'retry_scheduled', 'failed'] as const),
  manual: Type.Boolean({ description: 'made because of POST /webhooks/events/<id>/retry' }),
}, { title: 'DeliveryAttempt' });

export const DeliverySchema = Type.Object({
  url: Type.String(),
  endpoint_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'the webhook endpoint it goes to; null for a notification URL of the request' }),
  status: StringEnum(['pending', 'delivered', 'failed'] as const),
  attempt_count: Type.Integer(),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'when pending: the next attempt' }),
  delivered_at: NullableTimestamp,
  failed_at: NullableTimestamp,
  attempts: Type.Array(AttemptSchema, { description: 'the most recent attempts, oldest first (10 in lists, 100 for one event)' }),
}, { title: 'Delivery' });

export const EventSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the callback body id and its webhook-id header' }),
  type: StringEnum(EVENT_TYPES),
  created_at: Timestamp,
  resource_type: Type.String(),
  resource_id: Type.String(),
  data: Type.Unknown({ description: 'the callback body data (docs/callbacks.md)' }),
  status: StringEnum(EVENT_STATUSES),
  deliveries: Type.Array(DeliverySchema),
}, { title: 'Event' });
export type EventResource = Static<typeof EventSchema>;

export const EventPageSchema = Type.Object({
  events: Type.Array(EventSchema, { description: 'newest first' }),
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last' }),
}, { title: 'EventPage' });

export const ListEventsQuery = Type.Object({
  type: Type.Optional(StringEnum(EVENT_TYPES)),
  resource_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'payment_token, tx_id, checkout id, refund id…' })),
  status: Type.Optional(StringEnum(EVENT_STATUSES)),
  created_from: Type.Optional(Type.String({ format: 'date-time', description: 'events created at or after (inclusive)' })),
  created_to: Type.Optional(Type.String({ format: 'date-time', description: 'events created at or before (inclusive)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
});
export type ListEventsInput = Static<typeof ListEventsQuery>;

export const EventIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const RotatedSecretSchema = Type.Object({
  webhook_secret: Type.String({ description: 'the new whsec_… secret, shown only here; the previous one keeps signing for 24 hours' }),
});
