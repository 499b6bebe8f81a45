import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database';
import { jsonRows } from '../lib/json';
import { timeOrderedId } from '../lib/identifiers';

/** The callback types of the contract. */
export type EventType =
  | 'payment.status_changed'
  | 'checkout.status_changed'
  | 'refund.status_changed'
  | 'payout.status_changed'
  | 'subscription_charge.status_changed'
  | 'dispute.status_changed';

export interface NewEvent {
  merchantId: string;
  type: EventType;
  resourceType: 'payment' | 'checkout' | 'refund' | 'payout' | 'subscription_charge' | 'dispute';
  resourceId: string;
  data: Record<string, unknown>;
  /** Where the callback goes: the resource's notification_url (and the checkout's own URL). */
  notificationUrls: readonly (string | null | undefined)[];
}

/**
 * An event's row as the INSERT below reads it: callback targets are kept once each, and empty ones
 * dropped. Its id is made here rather than by the column's default, so that its deliveries can name it
 * in the same statement; `n` keeps the order the caller gave.
 */
function eventRow(event: NewEvent, n: number) {
  return {
    n,
    id: timeOrderedId(),
    merchant_id: event.merchantId,
    type: event.type,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    data: event.data,
    notification_urls: [...new Set(event.notificationUrls.filter((u): u is string => typeof u === 'string' && u !== ''))],
  };
}

/**
 * The callback fan-out: one delivery per event and callback target, for the delivery worker to claim
 * (webhooks/claim.ts). Each names its resource (`<resource_type>:<resource_id>`), so the callbacks of
 * one resource to one target go out in order, and they are listed in the events' order, so their ids
 * grow as the events' sequence numbers do. The rest of a delivery (PENDING, due now, its retry window
 * from now) is the table's defaults.
 *
 * Besides the event's notification URLs, each event has one row without a URL: the INSERT below expands
 * it into one delivery per enabled webhook endpoint of the merchant whose filter takes the event's type
 * (docs/callbacks.md, "Webhook endpoints"), read in the same statement.
 */
function callbackDeliveries(rows: readonly ReturnType<typeof eventRow>[]) {
  return rows
    .flatMap((e) => {
      const common = { event_id: e.id, merchant_id: e.merchant_id, type: e.type, resource_id: e.resource_id, resource_key: `${e.resource_type}:${e.resource_id}` };
      return [...e.notification_urls.map((url) => ({ ...common, url })), { ...common, url: null }];
    })
    .map((delivery, n) => ({ n, ...delivery }));
}

/**
 * The one INSERT of events, which every writer below runs: the events, then their callback deliveries
 * (callbackDeliveries) in a second data-modifying CTE of the same statement, so a committed event
 * always has its deliveries. Both travel as JSON parameters, so one query text serves any number of
 * events. With `after`, each event, and each of its deliveries, is written only where that CTE of the
 * same statement has a row whose `key` column is the event's resource id.
 *
 * PostgreSQL allows a data-modifying CTE only at the top level of a statement, so the two inserts
 * cannot sit inside one CTE's body; this text is the body of the caller's CTE (the events insert,
 * `returning id`), then closes it and opens the deliveries' own CTE, `<anchor>_callback_deliveries`,
 * whose body the caller's closing parenthesis ends: `event as (${insertEvents(…)})` reads as
 * `event as (insert into events …), event_callback_deliveries as (insert into webhook_deliveries …)`.
 */
function insertEvents(events: readonly NewEvent[], after?: { anchor: string; key: string }): RawBuilder<unknown> {
  const rows = events.map(eventRow);
  const anchored = (source: RawBuilder<unknown>, alias: string) =>
    after ? sql`${sql.table(after.anchor)} as a join ${source} on ${sql.ref(`${alias}.resource_id`)} = a.${sql.ref(after.key)}::text` : source;
  const eventSource = sql`json_to_recordset(${jsonRows(rows)}::json)
      as e(n integer, id uuid, merchant_id uuid, type text, resource_type text, resource_id text, data jsonb, notification_urls text[])`;
  const deliverySource = sql`json_to_recordset(${jsonRows(callbackDeliveries(rows))}::json)
      as d(n integer, event_id uuid, merchant_id uuid, type text, resource_id text, url text, resource_key text)`;
  return sql`
    insert into events (id, merchant_id, type, resource_type, resource_id, data, notification_urls)
    select e.id, e.merchant_id, e.type, e.resource_type, e.resource_id, e.data, e.notification_urls
    from ${anchored(eventSource, 'e')}
    order by e.n
    returning id
  ),
  ${sql.id(`${after?.anchor ?? 'event'}_callback_deliveries`)} as (
    insert into webhook_deliveries (event_id, merchant_id, url, resource_key, endpoint_id)
    select d.event_id, d.merchant_id, coalesce(d.url, w.url), d.resource_key, w.id
    from ${anchored(deliverySource, 'd')}
    left join webhook_endpoints w on d.url is null and w.merchant_id = d.merchant_id and w.enabled
      and w.enabled_events && array[d.type, '*']
    where d.url is not null or w.id is not null
    order by d.n, w.created_at, w.id`;
}

/**
 * Records events in the caller's transaction, so each exists exactly when its status change does (the
 * transactional outbox), with one callback delivery per callback target (callbackDeliveries), which the
 * delivery worker sends. One statement for any number of them (a payout batch records one event per
 * payout).
 * @example await recordEvents(trx, payouts.map((p) => ({ merchantId, type: 'payout.status_changed', resourceType: 'payout', resourceId: p.tx_id, data, notificationUrls: [p.notification_url] })))
 */
export async function recordEvents(db: Db, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await sql`with event as (${insertEvents(events)}) select 1 as done`.execute(db);
}

/**
 * Records one event in the caller's transaction (the same INSERT as recordEvents), and answers its id.
 * @example const eventId = await recordEvent(trx, { merchantId, type: 'payment.status_changed', resourceType: 'payment', resourceId: token, data, notificationUrls: [url] })
 */
export async function recordEvent(db: Db, event: NewEvent): Promise<string> {
  const { rows } = await sql<{ id: string }>`with event as (${insertEvents([event])}) select id from event`.execute(db);
  const [row] = rows;
  if (!row) throw new Error('the event insert returned no row');
  return row.id;
}

/**
 * recordEvents as a data-modifying CTE of a larger statement (the shared statements of the card hot
 * path): each event, with its callback deliveries, is written only where `anchor` (a CTE of the same
 * statement) has a row whose `key` column is the event's resource id, so it exists exactly when the
 * change it reports happened. Use it as the whole body of a CTE of the statement's `with` list, as
 * below: it adds the deliveries' CTE, `<anchor>_callback_deliveries`, after that one (insertEvents).
 * The anchor has at most one row per key.
 * @example sql`with updated as (…), event as (${eventsInsertFrom('updated', 'payment_token', events)}) select * from updated`
 */
export function eventsInsertFrom(anchor: string, key: string, events: readonly NewEvent[]): RawBuilder<unknown> {
  return insertEvents(events, { anchor, key });
}
