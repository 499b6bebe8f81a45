import { sql, type Kysely } from 'kysely';

/**
 * Shared machinery of the payment domains: the durable job queue, the event outbox, the double-entry
 * ledger, fee plans, FX rates, and the sandbox processor's own books.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table jobs (
      id bigserial primary key,
      kind text not null,
      payload jsonb not null,
      run_at timestamptz not null default now(),
      attempts integer not null default 0,
      max_attempts integer not null default 25,
      locked_by text,
      locked_until timestamptz,
      last_error text,
      failed_at timestamptz,
      unique_key text unique,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index jobs_due_idx on jobs (run_at) where failed_at is null`.execute(db);

  await sql`
    create table events (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      type text not null,
      resource_type text not null,
      resource_id text not null,
      data jsonb not null,
      notification_urls text[] not null default '{}',
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index events_merchant_idx on events (merchant_id, created_at)`.execute(db);

  await sql`
    create table ledger_entries (
      id bigserial primary key,
      journal_id uuid not null,
      merchant_id uuid not null references merchants(id),
      kind text not null,
      account text not null,
      amount_minor bigint not null,
      currency text not null,
      resource_id text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index ledger_entries_journal_idx on ledger_entries (journal_id)`.execute(db);
  await sql`create index ledger_entries_merchant_idx on ledger_entries (merchant_id, account)`.execute(db);
  await sql`create index ledger_entries_resource_idx on ledger_entries (resource_id)`.execute(db);

  await sql`
    create table fee_plans (
      merchant_id uuid primary key references merchants(id),
      plan jsonb not null,
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table fx_rates (
      currency text primary key,
      brl_per_unit text not null,
      as_of date not null
    )`.execute(db);
  // Sandbox reference rates (BRL per unit); live deployments set theirs through the admin API.
  await sql`
    insert into fx_rates (currency, brl_per_unit, as_of) values
      ('USD', '5.3412', '2026-11-20'), ('EUR', '6.1875', '2026-11-20'), ('MXN', '0.2931', '2026-11-20'),
      ('ARS', '0.0041', '2026-11-20'), ('COP', '0.00137', '2026-11-20'), ('PEN', '1.4210', '2026-11-20'),
      ('CLP', '0.00571', '2026-11-20')`.execute(db);

  await sql`
    create table sandbox_operations (
      reference text primary key,
      merchant_id uuid not null,
      operation text not null,
      result jsonb not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table sandbox_faults (
      merchant_id uuid not null references merchants(id),
      operation text not null,
      fault text not null,
      remaining integer not null,
      primary key (merchant_id, operation)
    )`.execute(db);
}
