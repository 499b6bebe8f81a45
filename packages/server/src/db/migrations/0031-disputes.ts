import { sql, type Kysely } from 'kysely';

/**
 * Disputes (disputes/, docs/disputes.md): a chargeback, inquiry or MED devolução on one payment, with its
 * stage, status, deadline, the money it holds, and its evidence, text fields in the row and files in
 * PostgreSQL, so every process of the service sees them and a database backup keeps them.
 *
 * - `disputes`: one row per dispute. `processor` and `processor_reference` name it as its reporter does
 *   (the sandbox's own id, Adyen's dispute reference, the MED devolução's id), unique per merchant, so a
 *   notification that arrives twice finds the dispute it opened. `held_minor` is the money the dispute
 *   holds now (0 for an inquiry, the amount once a chargeback took it), which is what its closing journal
 *   moves: a close never moves more than was held.
 * - `dispute_files` and `dispute_file_chunks`: an evidence file and its bytes, written in chunks of up to
 *   256 KB as the upload streams in, in one transaction, so a failed upload stores nothing.
 *
 * - `dispute_notices`: what a processor said about a dispute, in Colibri's words (a connector translates
 *   its provider's message: connectors/dispute-notices.ts), kept once per message (`notice_key`) and
 *   applied by the disputes domain in the order the processor dated them, so messages that arrive
 *   twice or out of order move a dispute once and forward only.
 *
 * Like every tenant table (migration 0022), keys end with `merchant_id` and references use the pair.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table disputes (
      dispute_id uuid not null,
      merchant_id uuid not null,
      payment_token uuid not null,
      reference_id text not null,
      processor text not null,
      processor_reference text not null,
      amount_minor bigint not null check (amount_minor > 0),
      currency text not null,
      fee_minor bigint not null default 0 check (fee_minor >= 0),
      held_minor bigint not null default 0 check (held_minor >= 0),
      reason_code text not null,
      reason_category text not null,
      reason_description text,
      stage text not null,
      status text not null,
      evidence_due_by timestamptz,
      evidence jsonb not null default '{}',
      refund_id bigint,
      notification_url text,
      warned_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      submitted_at timestamptz,
      won_at timestamptz,
      lost_at timestamptz,
      accepted_at timestamptz,
      primary key (dispute_id, merchant_id),
      unique (processor, processor_reference, merchant_id),
      foreign key (payment_token, merchant_id) references payments (payment_token, merchant_id)
    )`.execute(db);
  await sql`create index disputes_payment_idx on disputes (payment_token)`.execute(db);
  await sql`create index disputes_merchant_created_idx on disputes (merchant_id, created_at desc)`.execute(db);
  // The deadline sweep reads only the disputes waiting for a response.
  await sql`create index disputes_due_idx on disputes (evidence_due_by) where status = 'NEEDS_RESPONSE'`.execute(db);

  await sql`
    create table dispute_notices (
      id uuid not null,
      merchant_id uuid not null,
      processor text not null,
      notice_key text not null,
      processor_reference text not null,
      payment_token uuid not null,
      kind text not null,
      stage text not null,
      amount_minor bigint not null,
      currency text not null,
      reason_code text not null,
      reason_description text,
      evidence_due_by timestamptz,
      occurred_at timestamptz not null,
      details jsonb not null default '{}',
      received_at timestamptz not null default now(),
      applied_at timestamptz,
      outcome text,
      primary key (id, merchant_id),
      unique (processor, notice_key, merchant_id)
    )`.execute(db);
  await sql`create index dispute_notices_pending_idx on dispute_notices (processor, processor_reference) where applied_at is null`.execute(db);

  await sql`
    create table dispute_files (
      file_id uuid not null,
      dispute_id uuid not null,
      merchant_id uuid not null,
      kind text not null,
      filename text not null,
      content_type text not null,
      size_bytes bigint not null,
      sha256 text not null,
      created_at timestamptz not null,
      primary key (file_id, merchant_id),
      foreign key (dispute_id, merchant_id) references disputes (dispute_id, merchant_id)
    )`.execute(db);
  await sql`create index dispute_files_dispute_idx on dispute_files (dispute_id)`.execute(db);
  await sql`
    create table dispute_file_chunks (
      file_id uuid not null,
      merchant_id uuid not null,
      n integer not null,
      data bytea not null,
      primary key (file_id, n, merchant_id),
      foreign key (file_id, merchant_id) references dispute_files (file_id, merchant_id) on delete cascade
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table dispute_file_chunks`.execute(db);
  await sql`drop table dispute_files`.execute(db);
  await sql`drop table dispute_notices`.execute(db);
  await sql`drop table disputes`.execute(db);
}
