import { sql, type Kysely } from 'kysely';

/**
 * A payout in flight as a record of its own (payouts/payout-dispatch.ts): its hand-over to the payout
 * connector, with a state of its own apart from the payout's status, which stays PROCESSING throughout.
 *
 * - `SENDING`: the worker took the payout and is sending it (or will send it again, under the same
 *   reference, after a crash or a timeout: the payout job asks the connector before it sends);
 * - `ACCEPTED`: the provider accepted it and settles it later (dLocal answers PENDING); the payout job
 *   is done and the periodic read-back (`next_check_at`, doubling with each `checks`) asks the provider,
 *   unless its notification settles it first;
 * - `SETTLED`: the provider's final word was applied to the payout (PAID, REJECTED, CANCELED); a
 *   `returned_at` marks a payout the bank returned after it was PAID.
 *
 * The connector (`connector`) is the one that served the merchant's PAYOUT method when it was sent, and
 * `reference` the operation's reference at it (`<tx_id>:payout`). Like every tenant table (migration
 * 0022) its keys end with `merchant_id`, and it points at its payout by the pair.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table payout_dispatches (
      tx_id uuid not null,
      merchant_id uuid not null,
      connector text not null,
      reference text not null,
      status text not null check (status in ('SENDING', 'ACCEPTED', 'SETTLED')),
      provider_id text,
      checks integer not null default 0,
      next_check_at timestamptz,
      sending_at timestamptz not null,
      accepted_at timestamptz,
      settled_at timestamptz,
      returned_at timestamptz,
      primary key (tx_id, merchant_id),
      foreign key (tx_id, merchant_id) references payouts (tx_id, merchant_id)
    )`.execute(db);
  // The read-back claims the accepted dispatches that are due, oldest first.
  await sql`create index payout_dispatches_due_idx on payout_dispatches (next_check_at, merchant_id) where status = 'ACCEPTED'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table payout_dispatches`.execute(db);
}
