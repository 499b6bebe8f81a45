import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * Reconciliation with the processors (reconciliation/, docs/reconciliation.md):
 *
 * - `reconciliation_runs`: one imported report (a processor's settlement file, or the PSP's list of
 *   received PIX), with its counts. `file_sha256` is unique per processor: importing the same file again
 *   answers the first run and writes nothing. A run is the operator's, across merchants.
 * - `reconciliation_lines`: the lines of a run that did not match and belong to a merchant (an amount or
 *   fee that differs, a line naming a merchant's payment in a state that settles nothing, an operation
 *   the processor never settled), with what the report said, what Colibri expected, and their
 *   resolution. Only lines that did not match are stored: a matched line is only counted.
 * - `reconciliation_unattributed_lines`: lines that name nothing of Colibri's, so no merchant: kept
 *   apart, as the operator's, for the same API.
 * - `balance_adjustments`: an operator's adjustment of a merchant's balance, with its reason and who
 *   made it; the money moves by its ledger journal (kind `adjustment`).
 * - `sandbox_operations` gains what the simulated acquirer settled (a sale's or capture's amount, a
 *   refund's), its currency and when, on the merchant clock: its daily settlement report is written
 *   from these (GET /sandbox/settlement-report).
 *
 * The lines point at their run by a deferred foreign key: a run's row is written last, in the
 * transaction that wrote its lines, once the file has been read to its end and its digest is known.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table reconciliation_runs (
      id uuid primary key,
      processor text not null check (processor in ('adyen', 'sandbox', 'pix')),
      file_sha256 text not null,
      lines integer not null,
      matched integer not null,
      mismatched integer not null,
      missing_in_colibri integer not null,
      missing_at_processor integer not null,
      informational integer not null,
      period_from timestamptz,
      period_to timestamptz,
      imported_by text,
      created_at timestamptz not null default now(),
      unique (processor, file_sha256)
    )`.execute(db);
  await sql`create index reconciliation_runs_created_idx on reconciliation_runs (created_at desc, id)`.execute(db);

  await sql`
    create table reconciliation_lines (
      id uuid not null,
      merchant_id uuid not null,
      ${lineColumns()},
      primary key (id, merchant_id)
    )`.execute(db);
  await sql`create index reconciliation_lines_run_idx on reconciliation_lines (run_id)`.execute(db);
  // A later run that settles an operation flagged as missing at the processor resolves the earlier line.
  await sql`
    create index reconciliation_lines_missing_idx on reconciliation_lines (resource_id, merchant_id)
    where reason = 'MISSING_AT_PROCESSOR' and status = 'OPEN'`.execute(db);

  await sql`
    create table reconciliation_unattributed_lines (
      id uuid primary key,
      ${lineColumns()}
    )`.execute(db);
  await sql`create index reconciliation_unattributed_lines_run_idx on reconciliation_unattributed_lines (run_id)`.execute(db);

  await sql`
    create table balance_adjustments (
      id uuid not null,
      merchant_id uuid not null,
      amount_minor bigint not null check (amount_minor <> 0),
      currency text not null,
      reason text not null,
      operator text not null,
      run_id uuid references reconciliation_runs (id),
      line_id uuid,
      created_at timestamptz not null,
      primary key (id, merchant_id)
    )`.execute(db);

  await sql`alter table sandbox_operations add column settled_minor bigint, add column currency text, add column settled_at timestamptz`.execute(db);
  await sql`create index sandbox_operations_settled_idx on sandbox_operations (merchant_id, settled_at) where settled_minor is not null`.execute(db);
}

/** The columns both kinds of line share. */
function lineColumns(): RawBuilder<unknown> {
  return sql.raw(`
      run_id uuid not null references reconciliation_runs (id) deferrable initially deferred,
      line_number integer,
      reason text not null check (reason in ('AMOUNT_MISMATCH', 'FEE_MISMATCH', 'MISSING_IN_COLIBRI', 'MISSING_AT_PROCESSOR')),
      record_type text,
      psp_reference text,
      merchant_reference text,
      modification_reference text,
      modification_merchant_reference text,
      resource_type text check (resource_type in ('payment', 'refund', 'dispute')),
      resource_id text,
      currency text,
      reported_amount_minor bigint,
      expected_amount_minor bigint,
      reported_fee_minor bigint,
      expected_fee_minor bigint,
      reported_net_minor bigint,
      detail text not null,
      occurred_at timestamptz,
      expected_on date,
      status text not null default 'OPEN' check (status in ('OPEN', 'RESOLVED')),
      resolved_at timestamptz,
      resolved_by text,
      resolution_note text,
      adjustment_id uuid`);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index sandbox_operations_settled_idx`.execute(db);
  await sql`alter table sandbox_operations drop column settled_minor, drop column currency, drop column settled_at`.execute(db);
  await sql`drop table balance_adjustments`.execute(db);
  await sql`drop table reconciliation_unattributed_lines`.execute(db);
  await sql`drop table reconciliation_lines`.execute(db);
  await sql`drop table reconciliation_runs`.execute(db);
}
