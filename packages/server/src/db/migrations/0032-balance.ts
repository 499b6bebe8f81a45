import { sql, type Kysely } from 'kysely';

/**
 * Merchant balances (balance/, docs/balance-and-settlements.md):
 * - `ledger_entries.available_on`: the day the money of a `merchant_payable` or `reserve_held` line is the
 *   merchant's to settle; null on other accounts, and on the lines written before this migration, whose
 *   money is available.
 * - `balance_transactions`: every movement of a merchant's balance, one row per journal, kind of balance
 *   (BALANCE for `merchant_payable`, RESERVED for `reserve_held` and `disputes_held`) and date, written by
 *   the ledger in the statement that writes the journal (ledger/ledger.ts), so the transactions always add
 *   up to the balance. The journals written before this migration get theirs here, from their lines, with
 *   no fee shown (their gross is their net) and available at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_entries add column available_on date`.execute(db);
  await sql`
    create table balance_transactions (
      id uuid not null,
      journal_id uuid not null,
      merchant_id uuid not null,
      type text not null check (type in ('PAYMENT', 'REFUND', 'FEE', 'DISPUTE', 'DISPUTE_REVERSAL', 'PAYOUT', 'SETTLEMENT', 'ADJUSTMENT')),
      source_id text not null,
      currency text not null,
      amount_minor bigint not null,
      fee_minor bigint not null,
      net_minor bigint not null check (net_minor = amount_minor - fee_minor),
      bucket text not null check (bucket in ('BALANCE', 'RESERVED')),
      available_on date,
      created_at timestamptz not null,
      primary key (id, merchant_id)
    )`.execute(db);
  await sql`create index balance_transactions_merchant_idx on balance_transactions (merchant_id, created_at desc, id)`.execute(db);
  await sql`create index balance_transactions_journal_idx on balance_transactions (journal_id)`.execute(db);
  // A payment's, payout's or settlement's own transactions (the report fields available_on and balance_net).
  await sql`create index balance_transactions_source_idx on balance_transactions (source_id, type)`.execute(db);
  await sql`
    insert into balance_transactions (id, journal_id, merchant_id, type, source_id, currency, amount_minor, fee_minor, net_minor, bucket, available_on, created_at)
    select gen_random_uuid(), journal_id, merchant_id,
      case when kind = 'capture' then 'PAYMENT' when kind = 'refund' then 'REFUND' when kind like 'payout%' then 'PAYOUT'
           when kind = 'dispute.won' then 'DISPUTE_REVERSAL' when kind like 'dispute%' then 'DISPUTE' else 'ADJUSTMENT' end,
      min(resource_id), currency, -sum(amount_minor), 0, -sum(amount_minor),
      case when account = 'merchant_payable' then 'BALANCE' else 'RESERVED' end, null, min(created_at)
    from ledger_entries
    where account in ('merchant_payable', 'disputes_held')
    group by journal_id, merchant_id, kind, currency, case when account = 'merchant_payable' then 'BALANCE' else 'RESERVED' end
    having sum(amount_minor) <> 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table balance_transactions`.execute(db);
  await sql`alter table ledger_entries drop column available_on`.execute(db);
}
