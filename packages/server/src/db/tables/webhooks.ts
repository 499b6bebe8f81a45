import type { ColumnType, Generated } from 'kysely';

/** Table types of merchant callbacks (migration 0006-webhooks); merged into db/schema.ts's Database. */

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';
export type AttemptOutcome = 'DELIVERED' | 'RETRY' | 'FAILED';

/** One callback: an event sent to one of its notification URLs. Rows are made with their event (events/outbox.ts). */
export interface WebhookDeliveriesTable {
  id: Generated<bigint>;
  event_id: string;
  merchant_id: string;
  url: string;
  status: Generated<DeliveryStatus>;
  /** Attempts made, counted when one is claimed (so an attempt cut short by a crash counts too). */
  attempts: Generated<number>;
  /** Failed attempts in a row since the delivery began or was retried by hand; picks the next delay. */
  backoff_step: Generated<number>;
  /** Start of the retry window (72 hours by default) after which a failed attempt is final. */
  window_started_at: Timestamp;
  next_attempt_at: Timestamp;
  locked_by: string | null;
  locked_until: Date | null;
  /** Set by `POST /webhooks/events/<id>/retry`; the attempt it causes is marked manual. */
  manual_retry: Generated<boolean>;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  /** `<resource_type>:<resource_id>` of the event: deliveries of one resource and URL go out in order. */
  resource_key: Generated<string | null>;
  /** The merchant's webhook endpoint this delivery goes to; null for a request's notification URL (migration 0043). */
  endpoint_id: Generated<string | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<bigint>;
  delivery_id: bigint;
  merchant_id: string;
  event_id: string;
  /** 1 for the first attempt of the delivery, and so on. */
  attempt: number;
  manual: boolean;
  /** The worker that made it (`deliveries-<uuid>`), for tracing an attempt to a process. */
  worker_id: string;
  started_at: Date;
  latency_ms: number;
  response_status: number | null;
  error: string | null;
  outcome: AttemptOutcome;
}

/**
 * A merchant's signing secrets. The newest has no expiry; a rotation gives the previous one an expiry
 * (the overlap) during which callbacks carry both signatures. Secrets are encrypted with the card
 * cipher (`key_id` names its key), because signing needs them in clear and a copy of the database
 * alone must not let anyone forge callbacks.
 */
export interface WebhookSecretsTable {
  id: Generated<string>;
  merchant_id: string;
  key_id: string;
  secret_ciphertext: string;
  created_at: Timestamp;
  expires_at: Date | null;
  /** The webhook endpoint whose secret this is; null for the merchant's own (migration 0043). */
  endpoint_id: Generated<string | null>;
}

/**
 * A merchant's webhook endpoint: a URL that receives every event whose type it lists (`*` for all), in
 * addition to the notification URLs of each request, signed with secrets of its own (webhook_secrets).
 */
export interface WebhookEndpointsTable {
  id: Generated<string>;
  merchant_id: string;
  url: string;
  description: string | null;
  /** Event types, or `['*']` for every type. */
  enabled_events: string[];
  enabled: Generated<boolean>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: Timestamp;
}

export interface WebhookTables {
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_endpoints: WebhookEndpointsTable;
}
