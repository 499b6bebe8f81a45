import { sql, type Kysely } from 'kysely';

/**
 * A card payment's settlement can update its row in place (a heap-only update: no new entry in any of
 * the table's indexes), issue 35 (docs/performance.md):
 *
 * - PostgreSQL updates a row heap-only only when no column any index reads changes, predicates of
 *   partial indexes included. `status` was in the predicates of three partial indexes (open
 *   pre-authorisations, checkout payments waiting for a payer, boleto checkout payments compensating),
 *   so every status change added an entry to each of the eight indexes of `payments`.
 * - Each of those indexes now covers a stored generated column that holds its value only while the
 *   payment is in that state, and null otherwise, with `is not null` as the predicate. A card payment
 *   never in those states keeps the three null through its settlement, and PostgreSQL compares values,
 *   not the columns a statement sets.
 * - `payments` keeps 30 % of each page free (fillfactor 70) for the new version of a row beside the old.
 *
 * Adding stored generated columns rewrites `payments` under an exclusive lock: on a large installation,
 * run `colibri migrate` for this version in a quiet hour (docs/operations.md, "The image").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Before the columns: the rewrite that adding them causes lays existing rows out with the room.
  await sql`alter table payments set (fillfactor = 70)`.execute(db);
  await sql`
    alter table payments
      add column open_pre_authorized_at timestamptz
        generated always as (case when status = 'PRE_AUTHORIZED' then pre_authorized_at end) stored,
      add column waiting_checkout_expires_at timestamptz
        generated always as (case when checkout_id is not null and status = 'CREATED' then expires_at end) stored,
      add column compensating_checkout_id uuid
        generated always as (case when status = 'PROCESSING' and method = 'BOLETO' then checkout_id end) stored`.execute(db);
  await sql`create index payments_open_pre_authorized_idx on payments (open_pre_authorized_at) where open_pre_authorized_at is not null`.execute(db);
  await sql`create index payments_waiting_checkout_idx on payments (waiting_checkout_expires_at) where waiting_checkout_expires_at is not null`.execute(db);
  await sql`create index payments_compensating_checkout_idx on payments (compensating_checkout_id) where compensating_checkout_id is not null`.execute(db);
  await sql`drop index payments_preauth_idx`.execute(db);
  await sql`drop index payments_checkout_created_idx`.execute(db);
  await sql`drop index payments_checkout_compensating_idx`.execute(db);
}
