import { sql, type Kysely } from 'kysely';

/** Persons and cards of the checkout flow. Card numbers are stored only encrypted (see lib/secret-box.ts). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table persons (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      name text not null,
      email text not null,
      tax_id_type text not null,
      tax_id text not null,
      phone text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index persons_merchant_idx on persons (merchant_id)`.execute(db);
  await sql`
    create table cards (
      id uuid primary key default gen_random_uuid(),
      merchant_id uuid not null references merchants(id),
      person_id uuid not null references persons(id),
      scheme text not null,
      bin text not null,
      last4 text not null,
      masked_number text not null,
      exp_month integer not null,
      exp_year integer not null,
      holder_name text not null,
      number_ciphertext text not null,
      key_id text not null,
      status text not null default 'ACTIVE',
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index cards_merchant_idx on cards (merchant_id)`.execute(db);
  await sql`create index cards_key_idx on cards (key_id)`.execute(db);
}
