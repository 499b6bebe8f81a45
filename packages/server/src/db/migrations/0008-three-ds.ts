import { sql, type Kysely } from 'kysely';

/**
 * 3DS authentications of the browser library (three-ds/). One row per authenticate3DS call that
 * reached the service. The payment token is reserved at creation (unique) and becomes the
 * payment's own token when `POST /checkout/3ds/payment` uses the authentication; the CAVV is kept
 * only encrypted and only until then. No card number or CVV is stored here: an authenticated card
 * lives in the vault (`cards`, encrypted) and is referenced by id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table three_ds_authentications (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      payment_token uuid not null unique,
      status text not null,
      env text not null,
      merchant_origin text,
      reference_id text not null,
      notification_url text not null,
      method text not null,
      installments integer not null,
      amount_minor bigint not null,
      currency text not null,
      person_id uuid references persons(id),
      card_id uuid references cards(id),
      eci text,
      version text,
      dstrans_id text,
      cavv_ciphertext text,
      cavv_key_id text,
      error_code text,
      error_description text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      authenticated_at timestamptz,
      used_at timestamptz
    )`.execute(db);
  await sql`create index three_ds_authentications_merchant_idx on three_ds_authentications (merchant_id, created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table three_ds_authentications`.execute(db);
}
