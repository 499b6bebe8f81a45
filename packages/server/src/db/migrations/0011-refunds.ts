import { sql, type Kysely } from 'kysely';

/** Refunds of paid payments and their status history. Refund ids are integers, as the spec shows them. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table refunds (
      refund_id bigserial primary key,
      payment_token uuid not null references payments(payment_token),
      merchant_id uuid not null references merchants(id),
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null,
      status text not null,
      notification_url text,
      destination jsonb,
      processor_id text,
      error_code text,
      error_description text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      completed_at timestamptz,
      failed_at timestamptz
    )`.execute(db);
  await sql`create index refunds_payment_idx on refunds (payment_token)`.execute(db);
  await sql`create index refunds_merchant_idx on refunds (merchant_id, created_at)`.execute(db);
  await sql`
    create table refund_status_history (
      id bigserial primary key,
      refund_id bigint not null references refunds(refund_id),
      status text not null,
      at timestamptz not null
    )`.execute(db);
  await sql`create index refund_status_history_refund_idx on refund_status_history (refund_id)`.execute(db);
}
