import { sql, type Kysely } from 'kysely';

/**
 * The 3DS authentications of other 3DS servers (a merchant's own MPI) that paid, one row each: an
 * authentication pays once per merchant, so its directory-server transaction id is unique per merchant.
 * The row is written when sendPayment claims the data, before the payment is stored, and deleted if
 * the payment is not stored after all (three-ds/verify-authentication.ts). No CAVV is kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table external_authentications (
      merchant_id uuid not null references merchants(id),
      dstrans_id text not null,
      eci text not null,
      version text not null,
      claimed_at timestamptz not null,
      primary key (merchant_id, dstrans_id)
    )`.execute(db);
}
