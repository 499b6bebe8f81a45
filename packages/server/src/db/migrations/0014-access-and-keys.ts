import { sql, type Kysely } from 'kysely';

/**
 * Revocation, key rotation and login limits (docs/security.md):
 * - merchants can be disabled as users can; `access_version` in settings grows with every enable or
 *   disable, so each process notices a change with one small read;
 * - a user keeps the hash of its previous API secret for a grace period after a rotation;
 * - token signing keys live in their own table, each under a key id (`kid`) and encrypted with the
 *   master key; the old plain `token_signing_key` setting is dropped (tokens signed with it live at
 *   most 5 minutes, so an upgrade signs everyone out once at worst);
 * - `rate_limits` is the counter table of the shared limiters (login, 3DS), in the layout their
 *   library expects except that `expire` (epoch milliseconds) is a double precision: Colibri's pool
 *   reads int8 as bigint, which the library cannot subtract from a number (a double holds every
 *   millisecond timestamp exactly);
 * - card encryption keys, one RSA key pair per merchant and key id, private half encrypted;
 * - a 3DS authentication records whether the processor verified its card, which the library's answer
 *   must not reveal, and its masked number (first six and last four digits) for the challenge page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table merchants add column enabled boolean not null default true`.execute(db);
  await sql`alter table users add column previous_api_secret_hash text`.execute(db);
  await sql`alter table users add column previous_api_secret_expires_at timestamptz`.execute(db);
  await sql`create index users_disabled_idx on users (id) where not enabled`.execute(db);
  await sql`create index merchants_disabled_idx on merchants (id) where not enabled`.execute(db);
  await sql`insert into settings (key, value) values ('access_version', '0') on conflict (key) do nothing`.execute(db);
  await sql`delete from settings where key = 'token_signing_key'`.execute(db);
  await sql`
    create table token_signing_keys (
      kid text primary key,
      key_ciphertext text not null,
      master_key_id text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire double precision
    )`.execute(db);
  await sql`
    create table card_encryption_keys (
      kid text primary key,
      merchant_id uuid not null references merchants(id),
      public_jwk text not null,
      private_key_ciphertext text not null,
      master_key_id text not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create unique index card_encryption_keys_merchant_idx on card_encryption_keys (merchant_id)`.execute(db);
  await sql`alter table three_ds_authentications add column card_declined boolean not null default false`.execute(db);
  // The challenge page shows the masked number even when no card was stored (a declined verification).
  await sql`alter table three_ds_authentications add column masked_number text`.execute(db);
  // sendPayment looks the 3DS data it is given up by its directory-server transaction id.
  await sql`create unique index three_ds_authentications_dstrans_idx on three_ds_authentications (dstrans_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index three_ds_authentications_dstrans_idx`.execute(db);
  await sql`alter table three_ds_authentications drop column masked_number`.execute(db);
  await sql`alter table three_ds_authentications drop column card_declined`.execute(db);
  await sql`drop table card_encryption_keys`.execute(db);
  await sql`drop table rate_limits`.execute(db);
  await sql`drop table token_signing_keys`.execute(db);
  await sql`delete from settings where key = 'access_version'`.execute(db);
  await sql`drop index merchants_disabled_idx`.execute(db);
  await sql`drop index users_disabled_idx`.execute(db);
  await sql`alter table users drop column previous_api_secret_expires_at`.execute(db);
  await sql`alter table users drop column previous_api_secret_hash`.execute(db);
  await sql`alter table merchants drop column enabled`.execute(db);
}
