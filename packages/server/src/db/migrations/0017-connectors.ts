import { sql, type Kysely } from 'kysely';

/**
 * Processor connectors (docs/connectors.md):
 * - `merchant_connectors`: a merchant's own connector for a method, overriding the instance's routing,
 *   with its credentials encrypted under the master key (never stored in clear);
 * - `connector_operations`: what a connector knows of each operation it was sent, by Colibri's
 *   reference, so `status(reference)` can answer after a lost answer or a provider's notification;
 * - `connector_notifications`: the provider notifications already applied, so a duplicate is a no-op.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table merchant_connectors (
      merchant_id uuid not null references merchants(id),
      method text not null,
      connector text not null,
      key_id text not null,
      credentials_ciphertext text not null,
      updated_at timestamptz not null default now(),
      primary key (merchant_id, method)
    )`.execute(db);
  await sql`
    create table connector_operations (
      connector text not null,
      reference text not null,
      merchant_id uuid not null,
      provider_reference text,
      result jsonb not null,
      updated_at timestamptz not null default now(),
      primary key (connector, reference)
    )`.execute(db);
  await sql`create index connector_operations_provider_idx on connector_operations (connector, provider_reference)`.execute(db);
  await sql`
    create table connector_notifications (
      connector text not null,
      notification_key text not null,
      payload jsonb not null,
      received_at timestamptz not null default now(),
      primary key (connector, notification_key)
    )`.execute(db);
}
