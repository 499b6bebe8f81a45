import { sql, type Kysely } from 'kysely';

/**
 * Every tenant table carries `merchant_id` in its keys, so the schema can be distributed by merchant as
 * it is (docs/scaling.md, "Sharding by merchant"): a distributed PostgreSQL places rows by one column and
 * requires that column in every primary key and unique constraint, and in every foreign key between two
 * distributed tables, so that a merchant's rows and the checks between them stay on one node.
 *
 * - The rows that reach their merchant through a parent (histories, fees, attempts, payment codes) get
 *   their own `merchant_id`, copied from the parent.
 * - Primary keys and unique constraints gain `merchant_id` as their last column. What they make unique
 *   does not change: each key already named a row (ids are random UUIDs or sequence numbers), and a
 *   child's merchant is its parent's (next point). Keeping the row's own columns first keeps every lookup
 *   by id alone (job payloads, public checkout and 3DS pages, callbacks) on the primary key's index.
 * - Foreign keys between tenant tables become `(parent_id, merchant_id)` pairs: a row can only point at a
 *   row of its own merchant, which the database now checks instead of the application alone.
 *
 * `users` keeps its keys: `/auth` finds a user by `api_key` across merchants, so it is a shared
 * (reference) table, like `merchants` itself (test/tenant-keys.test.ts lists every shared table and why).
 */

/** Children that gain `merchant_id`, with the parent it is copied from. */
const CHILDREN: readonly { table: string; column: string; parent: string; parentKey: string }[] = [
  { table: 'payment_status_history', column: 'payment_token', parent: 'payments', parentKey: 'payment_token' },
  { table: 'payment_fees', column: 'payment_token', parent: 'payments', parentKey: 'payment_token' },
  { table: 'checkout_payment_codes', column: 'payment_token', parent: 'payments', parentKey: 'payment_token' },
  { table: 'payout_status_history', column: 'tx_id', parent: 'payouts', parentKey: 'tx_id' },
  { table: 'refund_status_history', column: 'refund_id', parent: 'refunds', parentKey: 'refund_id' },
  { table: 'subscription_charge_attempts', column: 'charge_id', parent: 'subscription_charges', parentKey: 'id' },
  { table: 'webhook_attempts', column: 'delivery_id', parent: 'webhook_deliveries', parentKey: 'id' },
];

/** Foreign keys between tenant tables: [table, constraint, column, parent, parent's key column]. */
const FOREIGN_KEYS: readonly (readonly [string, string, string, string, string])[] = [
  ['cards', 'cards_person_id_fkey', 'person_id', 'persons', 'id'],
  ['payments', 'payments_person_id_fkey', 'person_id', 'persons', 'id'],
  ['payments', 'payments_card_id_fkey', 'card_id', 'cards', 'id'],
  ['payment_status_history', 'payment_status_history_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['payment_fees', 'payment_fees_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['checkout_payment_codes', 'checkout_payment_codes_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['checkout_payment_codes', 'checkout_payment_codes_checkout_id_fkey', 'checkout_id', 'checkout_sessions', 'checkout_id'],
  ['refunds', 'refunds_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['refund_status_history', 'refund_status_history_refund_id_fkey', 'refund_id', 'refunds', 'refund_id'],
  ['payout_status_history', 'payout_status_history_tx_id_fkey', 'tx_id', 'payouts', 'tx_id'],
  ['subscriptions', 'subscriptions_person_id_fkey', 'person_id', 'persons', 'id'],
  ['subscriptions', 'subscriptions_card_id_fkey', 'card_id', 'cards', 'id'],
  ['subscription_charges', 'subscription_charges_subscription_id_fkey', 'subscription_id', 'subscriptions', 'id'],
  ['subscription_charges', 'subscription_charges_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['subscription_charge_attempts', 'subscription_charge_attempts_charge_id_fkey', 'charge_id', 'subscription_charges', 'id'],
  ['subscription_charge_attempts', 'subscription_charge_attempts_payment_token_fkey', 'payment_token', 'payments', 'payment_token'],
  ['three_ds_authentications', 'three_ds_authentications_person_id_fkey', 'person_id', 'persons', 'id'],
  ['three_ds_authentications', 'three_ds_authentications_card_id_fkey', 'card_id', 'cards', 'id'],
  ['webhook_deliveries', 'webhook_deliveries_event_id_fkey', 'event_id', 'events', 'id'],
  ['webhook_attempts', 'webhook_attempts_delivery_id_fkey', 'delivery_id', 'webhook_deliveries', 'id'],
];

/** Primary keys that gain `merchant_id`: [table, the key's columns today]. */
const PRIMARY_KEYS: readonly (readonly [string, string[]])[] = [
  ['card_encryption_keys', ['kid']],
  ['cards', ['id']],
  ['checkout_payment_codes', ['payment_token']],
  ['checkout_sessions', ['checkout_id']],
  ['connector_operations', ['connector', 'reference']],
  ['dashboard_sessions', ['id_hash']],
  ['events', ['id']],
  ['ledger_entries', ['id']],
  ['payment_fees', ['id']],
  ['payment_status_history', ['id']],
  ['payments', ['payment_token']],
  ['payout_status_history', ['id']],
  ['payouts', ['tx_id']],
  ['persons', ['id']],
  ['refund_status_history', ['id']],
  ['refunds', ['refund_id']],
  ['reports', ['id']],
  ['sandbox_operations', ['reference']],
  ['subscription_charge_attempts', ['charge_id', 'attempt']],
  ['subscription_charges', ['id']],
  ['subscriptions', ['id']],
  ['three_ds_authentications', ['id']],
  ['webhook_attempts', ['id']],
  ['webhook_deliveries', ['id']],
  ['webhook_secrets', ['id']],
];

/** Unique constraints that gain `merchant_id`: [table, constraint, its columns today]. */
const UNIQUE_CONSTRAINTS: readonly (readonly [string, string, string[]])[] = [
  ['payouts', 'payouts_batch_id_batch_index_key', ['batch_id', 'batch_index']],
  ['subscription_charges', 'subscription_charges_subscription_id_due_date_key', ['subscription_id', 'due_date']],
  ['subscription_charges', 'subscription_charges_subscription_id_period_key', ['subscription_id', 'period']],
  ['subscription_charge_attempts', 'subscription_charge_attempts_payment_token_key', ['payment_token']],
  ['three_ds_authentications', 'three_ds_authentications_payment_token_key', ['payment_token']],
  ['webhook_deliveries', 'webhook_deliveries_event_id_url_key', ['event_id', 'url']],
];

const columns = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)));

export async function up(db: Kysely<unknown>): Promise<void> {
  // The foreign keys hang on the keys about to change: dropped first, made again as pairs at the end.
  for (const [table, constraint] of FOREIGN_KEYS) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(constraint)}`.execute(db);
  }

  for (const { table, column, parent, parentKey } of CHILDREN) {
    await sql`alter table ${sql.table(table)} add column merchant_id uuid`.execute(db);
    await sql`
      update ${sql.table(table)} as c set merchant_id = p.merchant_id
      from ${sql.table(parent)} as p where p.${sql.ref(parentKey)} = c.${sql.ref(column)}`.execute(db);
    await sql`alter table ${sql.table(table)} alter column merchant_id set not null`.execute(db);
  }

  for (const [table, key] of PRIMARY_KEYS) {
    await sql`
      alter table ${sql.table(table)}
        drop constraint ${sql.ref(`${table}_pkey`)},
        add constraint ${sql.ref(`${table}_pkey`)} primary key (${columns([...key, 'merchant_id'])})`.execute(db);
  }
  for (const [table, constraint, key] of UNIQUE_CONSTRAINTS) {
    await sql`
      alter table ${sql.table(table)}
        drop constraint ${sql.ref(constraint)},
        add constraint ${sql.ref(constraint)} unique (${columns([...key, 'merchant_id'])})`.execute(db);
  }
  // A directory-server transaction id is unique per merchant (ids come from the 3DS server, random).
  await sql`drop index three_ds_authentications_dstrans_idx`.execute(db);
  await sql`create unique index three_ds_authentications_dstrans_idx on three_ds_authentications (dstrans_id, merchant_id)`.execute(db);

  for (const [table, constraint, column, parent, parentKey] of FOREIGN_KEYS) {
    await sql`
      alter table ${sql.table(table)} add constraint ${sql.ref(constraint)}
        foreign key (${columns([column, 'merchant_id'])}) references ${sql.table(parent)} (${columns([parentKey, 'merchant_id'])})`.execute(db);
  }

  // The deliveries made for new events name the unique constraint they skip on.
  await sql`
    create or replace function webhook_deliveries_for_events() returns trigger language plpgsql as $$
    begin
      insert into webhook_deliveries (event_id, merchant_id, url, resource_key)
      select e.id, e.merchant_id, u.url, e.resource_type || ':' || e.resource_id
      from new_events e, unnest(e.notification_urls) as u(url)
      order by e.sequence
      on conflict (event_id, url, merchant_id) do nothing;
      return null;
    end
    $$`.execute(db);
}
