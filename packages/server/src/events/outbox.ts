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

/** An event's row as the INSERT below reads it; callback targets are kept once each, and empty ones dropped. */
function eventRow(event: NewEvent) {
  return {
    merchant_id: event.merchantId,
    type: event.type,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    data: event.data,
    notification_urls: [...new Set(event.notificationUrls.filter((u): u is string => typeof u === 'string' && u !== ''))],
  };
}

/**
 * The one INSERT of events, which every writer below runs. The events travel as one JSON parameter, so
 * one query text serves any number of them. With `after`, each event is written only where that CTE of
 * the same statement has a row whose `key` column is the event's resource id.
 */
function insertEvents(events: readonly NewEvent[], after?: { anchor: string; key: string }): RawBuilder<unknown> {
  const source = sql`jsonb_to_recordset(${jsonParameter(events.map(eventRow))}::jsonb)
      as e(merchant_id uuid, type text, resource_type text, resource_id text, data jsonb, notification_urls text[])`;
  return sql`
    insert into events (merchant_id, type, resource_type, resource_id, data, notification_urls)
    select e.merchant_id, e.type, e.resource_type, e.resource_id, e.data, e.notification_urls
    from ${after ? sql`${sql.table(after.anchor)} as a join ${source} on e.resource_id = a.${sql.ref(after.key)}::text` : source}`;
}

/**
 * Records events in the caller's transaction, so each exists exactly when its status change does (the
 * transactional outbox); delivery to the merchant reads from here. One statement for any number of
 * them (a payout batch records one event per payout).
 * @example await recordEvents(trx, payouts.map((p) => ({ merchantId, type: 'payout.status_changed', resourceType: 'payout', resourceId: p.tx_id, data, notificationUrls: [p.notification_url] })))
 */
export async function recordEvents(db: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await insertEvents(events).execute(db);
}

/**
 * Records one event in the caller's transaction (the same INSERT as recordEvents), and answers its id.
 * @example const eventId = await recordEvent(trx, { merchantId, type: 'payment.status_changed', resourceType: 'payment', resourceId: token, data, notificationUrls: [url] })
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const { rows } = await sql<{ id: string }>`${insertEvents([event])} returning id`.execute(db);
  const [row] = rows;
  if (!row) throw new Error('the event insert returned no row');
  return row.id;
}

/**
 * recordEvents as a data-modifying CTE of a larger statement (the shared statements of the card hot
 * path): each event is written only where `anchor` (a CTE of the same statement) has a row whose `key`
 * column is the event's resource id, so it exists exactly when the change it reports happened.
 * @example sql`with updated as (…), event as (${eventsInsertFrom('updated', 'payment_token', events)}) select * from updated`
 */
export function eventsInsertFrom(anchor: string, key: string, events: readonly NewEvent[]): RawBuilder<unknown> {
  return insertEvents(events, { anchor, key });
}
