import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';

/** The callback types of the contract. */
export type EventType =
  | 'payment.status_changed'
  | 'checkout.status_changed'
  | 'refund.status_changed'
  | 'payout.status_changed'
  | 'subscription_charge.status_changed';

export interface NewEvent {
  merchantId: string;
  type: EventType;
  resourceType: 'payment' | 'checkout' | 'refund' | 'payout' | 'subscription_charge';
  resourceId: string;
  data: Record<string, unknown>;
  /** Where the callback goes: the resource's notification_url (and the checkout's own URL). */
  notificationUrls: readonly (string | null | undefined)[];
}

/** The row of an event; callback targets are kept once each, and empty ones dropped. */
function eventRow(event: NewEvent) {
  return {
    merchant_id: event.merchantId,
    type: event.type,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    data: JSON.stringify(event.data),
    notification_urls: [...new Set(event.notificationUrls.filter((u): u is string => typeof u === 'string' && u !== ''))],
  };
}

/**
 * Records an event in the caller's transaction, so the event exists exactly when the status change
 * does (the transactional outbox). Delivery to the merchant reads from here.
 * @example await recordEvent(trx, { merchantId, type: 'payment.status_changed', resourceType: 'payment', resourceId: token, data, notificationUrls: [url] })
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const row = await db.insertInto('events').values(eventRow(event)).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/**
 * An INSERT of an event for a data-modifying CTE: the event is written once per row of `anchor` (a CTE
 * of the same statement), so it exists exactly when the change it reports happened.
 * @example sql`with updated as (…), event as (${eventInsertFrom('updated', event)}) select * from updated`
 */
export function eventInsertFrom(anchor: string, event: NewEvent): RawBuilder<unknown> {
  const row = eventRow(event);
  return sql`
    insert into events (merchant_id, type, resource_type, resource_id, data, notification_urls)
    select ${row.merchant_id}::uuid, ${row.type}, ${row.resource_type}, ${row.resource_id}, ${row.data}::jsonb, ${row.notification_urls}::text[]
    from ${sql.table(anchor)}`;
}

/** Rows per INSERT: events have 6 columns, and PostgreSQL allows 65,535 parameters per statement. */
const EVENTS_PER_INSERT = 5000;

/**
 * Records many events in the caller's transaction with one statement per 5,000, for changes that
 * touch many resources at once (a payout batch creates one event per payout), where one INSERT per
 * event would cost a round trip each.
 * @example await recordEvents(trx, payouts.map((p) => ({ merchantId, type: 'payout.status_changed', resourceType: 'payout', resourceId: p.tx_id, data, notificationUrls: [p.notification_url] })))
 */
export async function recordEvents(db: Db, events: readonly NewEvent[]): Promise<void> {
  const rows = events.map(eventRow);
  for (let start = 0; start < rows.length; start += EVENTS_PER_INSERT) {
    await db.insertInto('events').values(rows.slice(start, start + EVENTS_PER_INSERT)).execute();
  }
}
