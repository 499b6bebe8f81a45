import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';

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
  return { ...eventColumns(event), data: JSON.stringify(event.data) };
}

/** Every column of an event's row but its data. */
function eventColumns(event: NewEvent) {
  return {
    merchant_id: event.merchantId,
    type: event.type,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
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
 * An INSERT of events for a data-modifying CTE: each event is written only where `anchor` (a CTE of the
 * same statement) has a row whose `key` column is the event's resource id, so it exists exactly when
 * the change it reports happened. One statement may so record the events of many changes.
 * @example sql`with updated as (…), event as (${eventsInsertFrom('updated', 'payment_token', events)}) select * from updated`
 */
export function eventsInsertFrom(anchor: string, key: string, events: readonly NewEvent[]): RawBuilder<unknown> {
  // The data stays a value here: the whole list becomes one JSON parameter.
  const rows = events.map((event) => ({ ...eventColumns(event), data: event.data }));
  return sql`
    insert into events (merchant_id, type, resource_type, resource_id, data, notification_urls)
    select e.merchant_id, e.type, e.resource_type, e.resource_id, e.data, e.notification_urls
    from ${sql.table(anchor)} as a
    join jsonb_to_recordset(${jsonParameter(rows)}::jsonb)
      as e(merchant_id uuid, type text, resource_type text, resource_id text, data jsonb, notification_urls text[])
      on e.resource_id = a.${sql.ref(key)}::text`;
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
