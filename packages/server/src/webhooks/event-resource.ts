import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database';
import type { EventsTable } from '../db/schema';
import type { EventResource, EventStatus } from './schemas';
import type { AttemptOutcome, DeliveryStatus, WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/tables/webhooks';

type EventRow = Pick<Selectable<EventsTable>, 'id' | 'type' | 'created_at' | 'resource_type' | 'resource_id' | 'data'>;
type DeliveryRow = Selectable<WebhookDeliveriesTable>;
type AttemptRow = Selectable<WebhookAttemptsTable>;

const RESULT: Record<AttemptOutcome, 'delivered' | 'retry_scheduled' | 'failed'> = {
  DELIVERED: 'delivered',
  RETRY: 'retry_scheduled',
  FAILED: 'failed',
};

const DELIVERY_STATUS: Record<DeliveryStatus, 'pending' | 'delivered' | 'failed'> = {
  PENDING: 'pending',
  DELIVERED: 'delivered',
  FAILED: 'failed',
};

/**
 * An event's callback state from its deliveries: pending while any is pending, failed when none is
 * pending and one failed, delivered when all were delivered, skipped when there were none (no
 * notification URL, and no webhook endpoint that takes its type).
 * @example eventStatus(['DELIVERED', 'PENDING']) // 'pending'
 */
export function eventStatus(statuses: readonly DeliveryStatus[]): EventStatus {
  if (statuses.length === 0) return 'skipped';
  if (statuses.includes('PENDING')) return 'pending';
  if (statuses.includes('FAILED')) return 'failed';
  return 'delivered';
}

/**
 * Loads the deliveries and the most recent attempts of some events, two statements for any number
 * of events, and presents each as the event log shows it.
 * @example const [resource] = await eventResources(db, [eventRow], 100);
 */
export async function eventResources(db: Db, events: readonly EventRow[], attemptsPerDelivery: number): Promise<EventResource[]> {
  if (events.length === 0) return [];
  const ids = events.map((e) => e.id);
  const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('event_id', 'in', ids).orderBy('id').execute();
  const attempts = (
    await sql<AttemptRow>`
      select * from (
        select a.*, row_number() over (partition by a.delivery_id order by a.id desc) as recent
        from webhook_attempts a where a.event_id = any(${ids}::uuid[])
      ) ranked
      where recent <= ${attemptsPerDelivery}
      order by delivery_id, id`.execute(db)
  ).rows;

  const attemptsOf = new Map<string, AttemptRow[]>();
  for (const attempt of attempts) {
    const key = String(attempt.delivery_id);
    attemptsOf.set(key, [...(attemptsOf.get(key) ?? []), attempt]);
  }
  const deliveriesOf = new Map<string, DeliveryRow[]>();
  for (const delivery of deliveries) deliveriesOf.set(delivery.event_id, [...(deliveriesOf.get(delivery.event_id) ?? []), delivery]);

  return events.map((event) => {
    const own = deliveriesOf.get(event.id) ?? [];
    return {
      id: event.id,
      type: event.type as EventResource['type'],
      created_at: iso(event.created_at),
      resource_type: event.resource_type,
      resource_id: event.resource_id,
      data: event.data,
      status: eventStatus(own.map((d) => d.status)),
      deliveries: own.map((d) => ({
        url: d.url,
        endpoint_id: d.endpoint_id,
        status: DELIVERY_STATUS[d.status],
        attempt_count: d.attempts,
        next_attempt_at: d.status === 'PENDING' ? iso(d.next_attempt_at) : null,
        delivered_at: d.delivered_at ? iso(d.delivered_at) : null,
        failed_at: d.failed_at ? iso(d.failed_at) : null,
        attempts: (attemptsOf.get(String(d.id)) ?? []).map((a) => ({
          attempt: a.attempt,
          attempted_at: iso(a.started_at),
          response_status: a.response_status,
          latency_ms: a.latency_ms,
          error: a.error,
          result: RESULT[a.outcome],
          manual: a.manual,
        })),
      })),
    };
  });
}

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}
