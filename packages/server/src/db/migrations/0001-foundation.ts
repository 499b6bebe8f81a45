import { sql, type Kysely } from 'kysely';

/** Merchants, their API users, service settings and idempotency keys. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table merchants (
      id uuid primary key default gen_random_uuid(),
      name text not null,
      contract_id text not null unique,
      payout_contract_id text not null unique,
      webhook_secret text not null,
      clock_offset_ms bigint not null default 0,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table users (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      username text not null unique,
      name text not null,
      enabled boolean not null default true,
      roles text[] not null,
      api_key text not null unique,
      api_secret_hash text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index users_merchant_idx on users (merchant_id)`.execute(db);
  await sql`create table settings (key text primary key, value text not null)`.execute(db);
  await sql`
    create table idempotency_keys (
      scope text not null,
      key text not null,
      request_hash text not null,
      state text not null check (state in ('IN_PROGRESS', 'COMPLETED')),
      response_status integer,
      response_body text,
      response_content_type text,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      primary key (scope, key)
    )`.execute(db);
  await sql`create index idempotency_keys_expiry_idx on idempotency_keys (expires_at)`.execute(db);
}
