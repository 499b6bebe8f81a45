import { sql, type Kysely } from 'kysely';

/**
 * What the service needs to survive crashes and slow processors (docs/architecture.md, "Faults"):
 * - idempotency claims hold a short lease, renewed while their request runs, so a crashed process
 *   blocks a key for seconds rather than a day;
 * - a payment and a refund remember the Idempotency-Key that created them, so a retry after a crash
 *   finds the effect instead of repeating it (one per key, enforced by a unique index);
 * - jobs remember whether an earlier attempt may have reached the processor, and since when an
 *   operation whose outcome is unknown has been past its deadline (reported, never given up silently);
 * - events carry a sequence that grows with each event, and deliveries name their resource, so the
 *   callbacks of one resource go out in order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys add column lease_until timestamptz`.execute(db);
  await sql`alter table idempotency_keys add column owner text`.execute(db);

  await sql`alter table payments add column idempotency_key text`.execute(db);
  await sql`create unique index payments_idempotency_key_idx on payments (merchant_id, idempotency_key) where idempotency_key is not null`.execute(db);
  await sql`alter table refunds add column idempotency_key text`.execute(db);
  await sql`create unique index refunds_idempotency_key_idx on refunds (merchant_id, idempotency_key) where idempotency_key is not null`.execute(db);

  await sql`alter table jobs add column outcome_unknown boolean not null default false`.execute(db);
  await sql`alter table jobs add column stuck_since timestamptz`.execute(db);
  await sql`create index jobs_stuck_idx on jobs (stuck_since) where stuck_since is not null`.execute(db);

  // One sequence for every event: it grows with each event of a resource because the changes of one
  // resource are serialised (row lock or guarded update), so each event is inserted after the previous
  // one committed. The number is written into the event's data, so every reader (callbacks, the event
  // log, streams) sees the same value.
  await sql`create sequence events_sequence`.execute(db);
  await sql`alter table events add column sequence bigint`.execute(db);
  await sql`
    create function events_set_sequence() returns trigger language plpgsql as $$
    begin
      new.sequence := nextval('events_sequence');
      new.data := new.data || jsonb_build_object('sequence', new.sequence);
      return new;
    end
    $$`.execute(db);
  await sql`create trigger events_sequence before insert on events for each row execute function events_set_sequence()`.execute(db);

  // Deliveries name their resource, so a delivery waits while an earlier one of the same resource and
  // URL is still pending (claim.ts).
  await sql`alter table webhook_deliveries add column resource_key text`.execute(db);
  await sql`create index webhook_deliveries_order_idx on webhook_deliveries (resource_key, url, id) where status = 'PENDING'`.execute(db);
  await sql`
    create or replace function webhook_deliveries_for_events() returns trigger language plpgsql as $$
    begin
      insert into webhook_deliveries (event_id, merchant_id, url, resource_key)
      select e.id, e.merchant_id, u.url, e.resource_type || ':' || e.resource_id
      from new_events e, unnest(e.notification_urls) as u(url)
      order by e.sequence
      on conflict (event_id, url) do nothing;
      return null;
    end
    $$`.execute(db);
}
