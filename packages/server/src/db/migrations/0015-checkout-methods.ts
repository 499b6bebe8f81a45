import { sql, type Kysely } from 'kysely';

/**
 * Checkout attempts of every method (docs/checkout.md, docs/cash-and-transfer-methods.md): what the payer
 * is shown for OXXO and PAYNET vouchers, SPEI transfers and PicPay, when a paid boleto compensates, and
 * each merchant's boleto term in business days.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table merchants add column boleto_due_business_days integer not null default 3
    check (boleto_due_business_days between 1 and 60)`.execute(db);
  await sql`alter table checkout_payment_codes
    add column reference text,
    add column clabe text,
    add column qr_payload text,
    add column deep_link text,
    add column compensates_at timestamptz`.execute(db);
  // The sweep looks for paid boletos whose compensation is due; few rows wait at any time.
  await sql`create index checkout_payment_codes_compensation_idx on checkout_payment_codes (compensates_at) where compensates_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index checkout_payment_codes_compensation_idx`.execute(db);
  await sql`alter table checkout_payment_codes drop column reference, drop column clabe, drop column qr_payload, drop column deep_link, drop column compensates_at`.execute(db);
  await sql`alter table merchants drop column boleto_due_business_days`.execute(db);
}
