import { sql, type Kysely } from 'kysely';

/**
 * Settlements to merchants (settlements/, docs/balance-and-settlements.md, "Settlements"):
 * - `settlement_settings`: one row per merchant that has any, its `paused` flag (the merchant's) and `held`
 *   flag with its reason (the operator's). The sweep locks this row while it reads the balance and writes a
 *   settlement, so two sweeps never settle the same money twice.
 * - `settlement_destinations`: the merchant's own bank destination per currency (a PIX key or a Brazilian bank
 *   account for BRL, a CLABE for MXN) and the least amount worth settling.
 * - `settlements`: the money sent to the merchant, with a snapshot of the destination it went to. One per
 *   merchant, currency and settlement day (`settlement_day`, the local day where the currency is settled), so a
 *   sweep that runs twice, or in two processes, makes one. `processor_reference` (`<settlement_id>:settlement`)
 *   names it to the processor and keys its job.
 *
 * Like every tenant table (migration 0022), keys end with `merchant_id` and references use the pair.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table settlement_settings (
      merchant_id uuid not null references merchants(id),
      paused boolean not null default false,
      held boolean not null default false,
      held_reason text,
      held_at timestamptz,
      updated_at timestamptz not null,
      primary key (merchant_id),
      check (held = (held_reason is not null))
    )`.execute(db);

  await sql`
    create table settlement_destinations (
      currency text not null,
      merchant_id uuid not null,
      destination jsonb not null,
      minimum_minor bigint not null check (minimum_minor > 0),
      updated_at timestamptz not null,
      primary key (currency, merchant_id),
      foreign key (merchant_id) references settlement_settings (merchant_id)
    )`.execute(db);

  await sql`
    create table settlements (
      settlement_id uuid not null,
      merchant_id uuid not null references merchants(id),
      currency text not null,
      amount_minor bigint not null check (amount_minor > 0),
      status text not null check (status in ('PENDING', 'IN_TRANSIT', 'PAID', 'FAILED')),
      settlement_day date not null,
      destination jsonb not null,
      arrival_date date not null,
      processor_reference text not null,
      processor_id text,
      failure_code text,
      failure_description text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      in_transit_at timestamptz,
      paid_at timestamptz,
      failed_at timestamptz,
      primary key (settlement_id, merchant_id),
      unique (currency, settlement_day, merchant_id),
      unique (processor_reference, merchant_id)
    )`.execute(db);
  await sql`create index settlements_merchant_created_idx on settlements (merchant_id, created_at desc, settlement_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table settlements`.execute(db);
  await sql`drop table settlement_destinations`.execute(db);
  await sql`drop table settlement_settings`.execute(db);
}
