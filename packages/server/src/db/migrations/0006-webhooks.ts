import { sql, type Kysely } from 'kysely';

/**
 * Merchant callbacks: one delivery per event and notification URL, every attempt made, and the
 * merchants' signing secrets (encrypted, with an expiry for the overlap after a rotation).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_deliveries (
      id bigserial primary key,
      event_id uuid not null references events(id),
      merchant_id uuid not null references merchants(id),
      url text not null,
      status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
      attempts integer not null default 0,
      backoff_step integer not null default 0,
      window_started_at timestamptz not null default now(),
      next_attempt_at timestamptz not null default now(),
      locked_by text,
      locked_until timestamptz,
      manual_retry boolean not null default false,
      last_attempt_at timestamptz,
      last_response_status integer,
      last_error text,
      delivered_at timestamptz,
      failed_at timestamptz,
      created_at timestamptz not null default now(),
      unique (event_id, url)
    )`.execute(db);
  // The claim reads only due, pending deliveries; delivered and failed ones leave the index.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'PENDING'`.execute(db);

  await sql`
    create table webhook_attempts (
      id bigserial primary key,
      delivery_id bigint not null references webhook_deliveries(id),
      event_id uuid not null,
      attempt integer not null,
      manual boolean not null default false,
      worker_id text not null,
      started_at timestamptz not null,
      latency_ms integer not null,
      response_status integer,
      error text,
      outcome text not null check (outcome in ('DELIVERED', 'RETRY', 'FAILED'))
    )`.execute(db);
  await sql`create index webhook_attempts_event_idx on webhook_attempts (event_id, delivery_id, id)`.execute(db);

  await sql`
    create table webhook_secrets (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      key_id text not null,
      secret_ciphertext text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz
    )`.execute(db);
  await sql`create index webhook_secrets_merchant_idx on webhook_secrets (merchant_id, created_at)`.execute(db);

  // Every event that names notification URLs gets one delivery per URL in the statement that inserts
  // it, so in the same transaction as the status change behind it. A trigger rather than code in
  // events/outbox.ts makes this hold for every writer of events (one event or a batch of thousands)
  // without each having to remember it; the statement-level form inserts a batch's deliveries in one go.
  await sql`
    create function webhook_deliveries_for_events() returns trigger language plpgsql as $$
    begin
      insert into webhook_deliveries (event_id, merchant_id, url)
      select e.id, e.merchant_id, u.url
      from new_events e, unnest(e.notification_urls) as u(url)
      on conflict (event_id, url) do nothing;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger events_webhook_deliveries after insert on events
    referencing new table as new_events
    for each statement execute function webhook_deliveries_for_events()`.execute(db);
}
