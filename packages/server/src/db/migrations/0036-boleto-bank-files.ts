import { sql, type Kysely } from 'kysely';

/**
 * Boletos registered with a bank through CNAB 240 files (connectors/boleto/, checkout/boleto-bank.ts):
 * - `boleto_bank_files`: every remessa written and every retorno read, with its content, kept whole;
 *   a retorno is imported once (by its content's SHA-256, and by the bank's sequence number), and one
 *   refused keeps only its refusal (the line and field at fault). The operator's files with the bank
 *   hold many merchants' boletos: the table is not a tenant's;
 * - `boleto_registrations`: a merchant's boleto at the bank, by its nosso número, and where it stands;
 * - `boleto_returns`: each occurrence of a return applied to a merchant's boleto, once by its key;
 * - `boleto_findings`: what the operator must look at (a boleto paid twice, paid after it closed, an
 *   occurrence for a boleto Colibri does not know).
 * The tenant tables name their files by id without a foreign key: a tenant table points at no table
 * kept on one node (test/tenant-keys.test.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table boleto_bank_files (
      id uuid primary key,
      direction text not null check (direction in ('REMESSA', 'RETORNO')),
      bank_code text not null,
      sequence integer,
      name text not null,
      content text not null,
      content_sha256 text not null,
      status text not null check (status in ('WRITING', 'WRITTEN', 'PROCESSED', 'REFUSED')),
      refusal jsonb,
      lines integer not null,
      created_at timestamptz not null default now(),
      processed_at timestamptz
    )`.execute(db);
  await sql`create unique index boleto_bank_files_content_idx on boleto_bank_files (direction, content_sha256)`.execute(db);
  await sql`create unique index boleto_bank_files_sequence_idx on boleto_bank_files (direction, bank_code, sequence) where status <> 'REFUSED'`.execute(db);
  await sql`create index boleto_bank_files_writing_idx on boleto_bank_files (created_at) where status = 'WRITING'`.execute(db);
  await sql`
    create table boleto_registrations (
      merchant_id uuid not null references merchants (id),
      payment_token uuid not null,
      connector text not null,
      bank_code text not null,
      nosso_numero text not null,
      amount_minor bigint not null,
      due_date date not null,
      issued_on date not null,
      status text not null check (status in ('PENDING', 'SENT', 'REGISTERED', 'REJECTED', 'PAID', 'WRITTEN_OFF')),
      write_off text check (write_off in ('PENDING', 'SENT')),
      remessa_id uuid,
      write_off_remessa_id uuid,
      paid_minor bigint,
      tariff_minor bigint,
      paid_on date,
      credited_on date,
      result_code text,
      result_description text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (merchant_id, payment_token),
      foreign key (merchant_id, payment_token) references payments (merchant_id, payment_token)
    )`.execute(db);
  await sql`create index boleto_registrations_nosso_numero_idx on boleto_registrations (bank_code, nosso_numero)`.execute(db);
  await sql`create index boleto_registrations_pending_idx on boleto_registrations (created_at) where status = 'PENDING' or write_off = 'PENDING'`.execute(db);
  // The registered boletos still open at the bank, whose payment may close without it (to write off).
  await sql`create index boleto_registrations_open_idx on boleto_registrations (bank_code) where status in ('SENT', 'REGISTERED') and write_off is null`.execute(db);
  await sql`
    create table boleto_returns (
      merchant_id uuid not null references merchants (id),
      occurrence_key text not null,
      payment_token uuid not null,
      file_id uuid not null,
      line integer not null,
      movement text not null,
      outcome text not null,
      created_at timestamptz not null default now(),
      primary key (merchant_id, occurrence_key)
    )`.execute(db);
  await sql`
    create table boleto_findings (
      id uuid primary key,
      file_id uuid not null references boleto_bank_files (id),
      line integer not null,
      merchant_id uuid,
      payment_token uuid,
      nosso_numero text not null,
      kind text not null,
      detail text not null,
      amount_minor bigint,
      created_at timestamptz not null default now(),
      resolved_at timestamptz
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table boleto_findings`.execute(db);
  await sql`drop table boleto_returns`.execute(db);
  await sql`drop table boleto_registrations`.execute(db);
  await sql`drop table boleto_bank_files`.execute(db);
}
