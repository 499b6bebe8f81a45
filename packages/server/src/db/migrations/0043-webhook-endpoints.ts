import { sql, type Kysely } from 'kysely';

/**
 * Merchant-level webhook endpoints (docs/callbacks.md, "Webhook endpoints"): URLs a merchant registers
 * once, each with an event-type filter and a signing secret of its own, that receive every matching
 * event in addition to the notification URLs given with each request.
 *
 * - `webhook_endpoints`: the endpoints, keyed `(id, merchant_id)` like every tenant table.
 * - `webhook_secrets.endpoint_id`: an endpoint's signing secrets live beside the merchant's, encrypted
 *   the same way and rotated with the same overlap; a null `endpoint_id` is the merchant's own secret.
 *   They go with their endpoint.
 * - `webhook_deliveries.endpoint_id`: the endpoint a delivery goes to, null for a notification URL.
 *   No foreign key: a deleted endpoint's deliveries stay in the event log, given up.
 * - The unique key of deliveries becomes one per event, URL and endpoint, so an endpoint whose URL is
 *   also a request's notification URL gets its own delivery (signed with its own secret). It is an
 *   index over an expression (a missing endpoint reads as the nil UUID), led by `event_id` as the
 *   constraint it replaces, so the event log's look-ups by event keep their index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id uuid not null default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      url text not null,
      description text,
      enabled_events text[] not null,
      enabled boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (id, merchant_id)
    )`.execute(db);
  // The fan-out reads a merchant's enabled endpoints for every event it records.
  await sql`create index webhook_endpoints_merchant_idx on webhook_endpoints (merchant_id, created_at)`.execute(db);

  await sql`alter table webhook_secrets add column endpoint_id uuid`.execute(db);
  await sql`
    alter table webhook_secrets add constraint webhook_secrets_endpoint_id_fkey
      foreign key (endpoint_id, merchant_id) references webhook_endpoints (id, merchant_id) on delete cascade`.execute(db);

  await sql`alter table webhook_deliveries add column endpoint_id uuid`.execute(db);
  await sql`alter table webhook_deliveries drop constraint webhook_deliveries_event_id_url_key`.execute(db);
  await sql`
    create unique index webhook_deliveries_event_target_key on webhook_deliveries
      (event_id, url, (coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid)), merchant_id)`.execute(db);
}

/** Drops the endpoints and their deliveries' link (their deliveries are removed: the old key cannot hold them). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from webhook_attempts a using webhook_deliveries d where d.id = a.delivery_id and d.merchant_id = a.merchant_id and d.endpoint_id is not null`.execute(db);
  await sql`delete from webhook_deliveries where endpoint_id is not null`.execute(db);
  await sql`drop index webhook_deliveries_event_target_key`.execute(db);
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_event_id_url_key unique (event_id, url, merchant_id)`.execute(db);
  await sql`alter table webhook_deliveries drop column endpoint_id`.execute(db);
  await sql`delete from webhook_secrets where endpoint_id is not null`.execute(db);
  await sql`alter table webhook_secrets drop column endpoint_id`.execute(db);
  await sql`drop table webhook_endpoints`.execute(db);
}
