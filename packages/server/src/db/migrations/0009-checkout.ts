import { sql, type Kysely } from 'kysely';

/**
 * Hosted checkout (docs/checkout.md): the session, and the payment codes (BR Code, boleto) its PIX and
 * BOLETO attempts show. The payments themselves live in `payments` with `checkout_id` set.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table checkout_sessions (
      checkout_id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      contract_id text not null,
      reference_id text not null,
      checkout_reference_id text,
      mode text not null check (mode in ('SINGLE', 'MULTI')),
      methods text[] not null,
      status text not null check (status in ('CREATED', 'PROCESSING', 'PAID', 'CANCELED', 'ERROR')),
      original_amount_minor bigint not null check (original_amount_minor > 0),
      original_currency text not null,
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null,
      fx_rate text,
      fx_rate_date text,
      notification_url text,
      success_url text,
      declined_url text,
      error_url text,
      checkout_notification_url text,
      pix_direct boolean not null,
      payment_country text not null,
      payment_currency text not null,
      save_card boolean not null,
      current_payment_token uuid,
      current_payment_status text,
      attempts integer not null default 0 check (attempts >= 0),
      end_reason text,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      processing_at timestamptz,
      paid_at timestamptz,
      canceled_at timestamptz,
      failed_at timestamptz
    )`.execute(db);
  await sql`create index checkout_sessions_merchant_idx on checkout_sessions (merchant_id, created_at)`.execute(db);
  await sql`create index checkout_sessions_open_idx on checkout_sessions (expires_at) where status in ('CREATED', 'PROCESSING')`.execute(db);
  await sql`create index payments_checkout_idx on payments (checkout_id) where checkout_id is not null`.execute(db);
  await sql`create sequence checkout_boleto_seq`.execute(db);
  await sql`
    create table checkout_payment_codes (
      payment_token uuid primary key references payments(payment_token),
      checkout_id uuid not null references checkout_sessions(checkout_id),
      br_code text,
      txid text,
      barcode text,
      digitable_line text,
      due_date text
    )`.execute(db);
}
