import { sql, type Kysely } from 'kysely';

/** Card payments (and later checkout payments): the payment, its fees and its status history. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payments (
      payment_token uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      contract_id text not null,
      reference_id text not null,
      method text not null,
      status text not null,
      person_id uuid references persons(id),
      card_id uuid references cards(id),
      original_amount_minor bigint not null,
      original_currency text not null,
      amount_minor bigint not null,
      currency text not null,
      customer_fees_minor bigint not null,
      merchant_fees_minor bigint not null,
      fee_rules jsonb not null,
      fx_rate text,
      fx_rate_date text,
      installments integer not null,
      delay_capture boolean not null,
      soft_descriptor text,
      extra_data jsonb,
      ip_address text,
      notification_url text,
      authentication jsonb,
      authorized_minor bigint not null default 0,
      captured_minor bigint not null default 0,
      refunded_minor bigint not null default 0,
      pending_capture_minor bigint,
      processor_id text,
      error_code text,
      error_description text,
      expires_at timestamptz,
      end_to_end_id text,
      subscription_id uuid,
      checkout_id uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      pre_authorized_at timestamptz,
      paid_at timestamptz,
      canceled_at timestamptz,
      failed_at timestamptz,
      check (captured_minor <= authorized_minor or authorized_minor = 0),
      check (refunded_minor <= captured_minor)
    )`.execute(db);
  await sql`create index payments_merchant_idx on payments (merchant_id, created_at)`.execute(db);
  await sql`create index payments_preauth_idx on payments (pre_authorized_at) where status = 'PRE_AUTHORIZED'`.execute(db);
  await sql`
    create table payment_fees (
      id bigserial primary key,
      payment_token uuid not null references payments(payment_token),
      fee_type text not null,
      payer text not null,
      amount_minor bigint not null,
      currency text not null
    )`.execute(db);
  await sql`create index payment_fees_payment_idx on payment_fees (payment_token)`.execute(db);
  await sql`
    create table payment_status_history (
      id bigserial primary key,
      payment_token uuid not null references payments(payment_token),
      status text not null,
      at timestamptz not null
    )`.execute(db);
  await sql`create index payment_status_history_payment_idx on payment_status_history (payment_token)`.execute(db);
}
