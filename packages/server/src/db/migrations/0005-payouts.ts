import { sql, type Kysely } from 'kysely';

/**
 * Payouts to bank accounts in Colombia, Peru and Chile (docs/payouts.md): one row per payout item and
 * one history row per status it has been in.
 *
 * Money columns are bigint minor units. `amount_minor` is the payout's amount in the payment currency
 * (after FX); the fee and total columns are kept beside it, and check constraints hold the definitions
 * of docs/payouts.md ("Amounts and fees") so no code path can store totals that disagree with them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payouts (
      tx_id uuid primary key,
      merchant_id uuid not null references merchants(id),
      batch_id uuid not null,
      batch_index integer not null,
      contract_id text not null,
      reference_id text not null,
      country text not null check (country in ('CO', 'PE', 'CL')),
      method text not null,
      original_amount_minor bigint not null check (original_amount_minor > 0),
      original_currency text not null,
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null,
      fx_rate text,
      fx_rate_date text,
      merchant_fees_minor bigint not null check (merchant_fees_minor >= 0),
      merchant_amount_minor bigint not null,
      customer_fees_minor bigint not null check (customer_fees_minor >= 0),
      customer_amount_minor bigint not null check (customer_amount_minor > 0),
      fees jsonb not null,
      bank_code text,
      account_type text not null,
      account_number text not null,
      tax_id_type text not null,
      tax_id text not null,
      email text,
      full_name text,
      notification_url text not null,
      status text not null check (status in ('CREATED', 'PROCESSING', 'PAID', 'REJECTED', 'CANCELED')),
      processor_id text,
      error_code text,
      error_description text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      processing_at timestamptz,
      paid_at timestamptz,
      rejected_at timestamptz,
      canceled_at timestamptz,
      check (merchant_amount_minor = amount_minor + merchant_fees_minor),
      check (customer_amount_minor = amount_minor - customer_fees_minor),
      unique (batch_id, batch_index)
    )`.execute(db);
  await sql`create index payouts_merchant_idx on payouts (merchant_id, created_at)`.execute(db);
  await sql`create index payouts_reference_idx on payouts (merchant_id, reference_id)`.execute(db);

  await sql`
    create table payout_status_history (
      id bigserial primary key,
      tx_id uuid not null references payouts(tx_id),
      status text not null,
      previous_status text,
      error_code text,
      at timestamptz not null
    )`.execute(db);
  await sql`create index payout_status_history_payout_idx on payout_status_history (tx_id)`.execute(db);
}
