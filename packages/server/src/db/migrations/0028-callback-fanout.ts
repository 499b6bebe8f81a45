import { sql, type Kysely } from 'kysely';

/**
 * The callback fan-out (one delivery per event and notification URL) is a step of the events insert in
 * events/outbox.ts (`insertEvents`, its deliveries from `callbackDeliveries`), written in the same
 * statement as the events: every writer of events already goes through that module. The trigger that
 * did it until now, `events_webhook_deliveries` with its function `webhook_deliveries_for_events`
 * (made in 0006-webhooks, changed in 0012-resilience and 0022-tenant-keys), is dropped, so no write
 * happens that the code does not show (docs/architecture.md, "Callback fan-out").
 *
 * The outbox writes the same rows the trigger did: event, merchant, URL and resource key, in the events'
 * order. A process of an earlier version still running once this has run (a rolling upgrade) records
 * events without deliveries: processes of earlier versions are stopped before it runs (docs/operations.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger events_webhook_deliveries on events`.execute(db);
  await sql`drop function webhook_deliveries_for_events()`.execute(db);
}

/** Puts the trigger back as 0022-tenant-keys left it, for the versions before this one. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function webhook_deliveries_for_events() returns trigger language plpgsql as $$
    begin
      insert into webhook_deliveries (event_id, merchant_id, url, resource_key)
      select e.id, e.merchant_id, u.url, e.resource_type || ':' || e.resource_id
      from new_events e, unnest(e.notification_urls) as u(url)
      order by e.sequence
      on conflict (event_id, url, merchant_id) do nothing;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger events_webhook_deliveries after insert on events
    referencing new table as new_events
    for each statement execute function webhook_deliveries_for_events()`.execute(db);
}
