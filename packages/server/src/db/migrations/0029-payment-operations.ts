import { sql, type Kysely } from 'kysely';

/**
 * Money in flight as records (payments/operations.ts): every processor operation on a card payment
 * (authorise, capture, cancel) is a row with its own status, amount, processor reference, outcome and a
 * time per final status, and the job that carries it names the operation, not the payment. A capture or
 * cancel keeps the Idempotency-Key of its request, so a retry after a crash finds it.
 *
 * Jobs waiting at the time of the upgrade are carried over: each `payment.process` job becomes the
 * operation it was working on, with the processor reference it was already using (the authorisation's
 * `<token>:authorize`, a capture's or cancel's `<token>:<step>:<job id>`), so an attempt that reached the
 * processor before the upgrade is found, not repeated. Every job that carries a processor operation (a
 * card operation's, a refund's settlement) is keyed by the operation's reference, which is how a
 * provider's notification finds the job that waits on it.
 *
 * Like every tenant table (migration 0022), its keys end with `merchant_id`, and it points at its
 * payment by the pair.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payment_operations (
      id uuid not null,
      payment_token uuid not null,
      merchant_id uuid not null,
      kind text not null check (kind in ('authorize', 'capture', 'cancel')),
      status text not null default 'REQUESTED',
      amount_minor bigint not null,
      reference text not null,
      reason text,
      processor_id text,
      result_code text,
      result_description text,
      idempotency_key text,
      requested_at timestamptz not null,
      approved_at timestamptz,
      declined_at timestamptz,
      failed_at timestamptz,
      primary key (id, merchant_id),
      foreign key (payment_token, merchant_id) references payments (payment_token, merchant_id)
    ) with (fillfactor = 50)`.execute(db);
  await sql`
    create unique index payment_operations_idempotency_idx on payment_operations (kind, idempotency_key, merchant_id)
    where idempotency_key is not null`.execute(db);
  // Only the primary key and the keyed requests' index: a row is written twice on the hot path (asked for,
  // answered), and an answer moves no indexed column, so with room left on its page (fillfactor 50) it
  // is a heap-only update that touches no index. At most one operation is in flight per payment because
  // asking for one moves the payment to PROCESSING under its row lock (payments/operations.ts).

  await sql`
    insert into payment_operations (id, payment_token, merchant_id, kind, amount_minor, reference, reason, requested_at)
    select distinct on (p.payment_token) gen_random_uuid(), p.payment_token, p.merchant_id, j.payload->>'step',
      case when j.payload->>'step' = 'capture' then coalesce(p.pending_capture_minor, p.authorized_minor)
           when j.payload->>'step' = 'cancel' then p.authorized_minor
           else p.amount_minor + p.customer_fees_minor end,
      case when j.payload->>'step' = 'authorize' then p.payment_token::text || ':authorize'
           else p.payment_token::text || ':' || (j.payload->>'step') || ':' || j.id::text end,
      j.payload->>'reason', j.created_at
    from jobs as j
    join payments as p on p.payment_token = (j.payload->>'paymentToken')::uuid
    where j.kind = 'payment.process' and p.status = 'PROCESSING' and j.failed_at is null
    order by p.payment_token, j.id desc`.execute(db);
  await sql`
    update jobs as j
    set payload = jsonb_strip_nulls(jsonb_build_object('operationId', o.id, 'merchantId', o.merchant_id, 'authentication', j.payload->'authentication')),
        unique_key = o.reference
    from payment_operations as o
    where j.kind = 'payment.process' and o.payment_token = (j.payload->>'paymentToken')::uuid`.execute(db);
  // A refund's settlement is keyed by its processor reference too, so a notification finds it by that alone.
  await sql`
    update jobs as j set unique_key = r.payment_token::text || ':refund:' || r.refund_id::text
    from refunds as r
    where j.kind = 'refund.settle' and r.refund_id = (j.payload->>'refundId')::bigint`.execute(db);
  // Jobs of payments no longer in flight would find nothing to do.
  await sql`delete from jobs where kind = 'payment.process' and payload ? 'paymentToken'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table payment_operations`.execute(db);
}
