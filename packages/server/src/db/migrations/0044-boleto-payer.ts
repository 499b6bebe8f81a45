import { sql, type Kysely } from 'kysely';

/**
 * The payer of a boleto registered with a bank (checkout/boleto-payer.ts), which banks require since
 * 2017 and segment Q of a remessa carries:
 * - `checkout_sessions.payer`: the payer the merchant gave at generation, or the shopper on the page,
 *   kept for the session's boleto attempts (JSON: tax_id_type, tax_id, name, street, number,
 *   complement, district, city, state, postal_code);
 * - `boleto_registrations.payer_*`: the payer the boleto was registered with, as the remessa writes it.
 * A CPF or CNPJ is personal data, stored like the vault's persons (`persons.tax_id`) and shown masked
 * (maskTaxId) wherever Colibri shows it; logs redact it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table checkout_sessions add column payer jsonb`.execute(db);
  await sql`
    alter table boleto_registrations
      add column payer_tax_id_type text check (payer_tax_id_type in ('CPF', 'CNPJ')),
      add column payer_tax_id text,
      add column payer_name text,
      add column payer_address text,
      add column payer_district text,
      add column payer_city text,
      add column payer_state text,
      add column payer_postal_code text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table boleto_registrations
      drop column payer_tax_id_type, drop column payer_tax_id, drop column payer_name, drop column payer_address,
      drop column payer_district, drop column payer_city, drop column payer_state, drop column payer_postal_code`.execute(db);
  await sql`alter table checkout_sessions drop column payer`.execute(db);
}
