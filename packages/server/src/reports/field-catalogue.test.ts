import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database';
import { maskTaxId } from '../rails/brazil';
import { catalogueField, FIELD_CATALOGUE, maskedAccountNumber, maskedTaxId, renderCatalogueTable } from './field-catalogue';

describe('the field catalogue', () => {
  it('has unique ids, a source for each report type a field allows, and currencies for amounts', () => {
    expect(new Set(FIELD_CATALOGUE.map((f) => f.id)).size).toBe(FIELD_CATALOGUE.length);
    expect(new Set(FIELD_CATALOGUE.map((f) => f.name)).size).toBe(FIELD_CATALOGUE.length);
    for (const field of FIELD_CATALOGUE) {
      if (field.reportTypes.includes('PAYIN')) expect(field.payin, field.name).not.toBeNull();
      if (field.reportTypes.includes('MERCHANT')) expect(field.payin ?? field.payout ?? field.settlement ?? null, field.name).not.toBeNull();
      if (field.type === 'money') expect(catalogueField(field.currencyField ?? -1)?.type, field.name).toBe('enum');
      if (field.type === 'enum') expect(field.values?.length, field.name).toBeGreaterThan(0);
    }
  });

  it('is documented in docs/reports.md exactly as the code has it', () => {
    const docs = readFileSync(new URL('../../../../docs/reports.md', import.meta.url), 'utf8');
    expect(docs).toContain(renderCatalogueTable());
  });

  it('masks stored tax ids in SQL as transaction details do, other ids and accounts to their last characters', async () => {
    const { db, close } = await openDatabase({ engine: 'pglite' });
    try {
      const taxId = async (type: string, value: string) =>
        (await sql<{ masked: string }>`select ${maskedTaxId(sql`${type}::text`, sql`${value}::text`)} as masked`.execute(db)).rows[0]?.masked;
      const account = async (value: string) => (await sql<{ masked: string }>`select ${maskedAccountNumber(sql`${value}::text`)} as masked`.execute(db)).rows[0]?.masked;
      // The vault stores a CPF as 11 digits and a CNPJ as 14 characters.
      expect(await taxId('CPF', '52998224725')).toBe(maskTaxId('CPF', '52998224725'));
      expect(await taxId('CNPJ', '11222333000181')).toBe(maskTaxId('CNPJ', '11222333000181'));
      expect(await taxId('CNPJ', '12ABC34501DE35')).toBe(maskTaxId('CNPJ', '12ABC34501DE35'));
      // Anything else is masked whole rather than guessed at.
      expect(await taxId('CPF', '529.982.247-25')).toBe('***.***.***-**');
      expect(await taxId('CNPJ', '112223330001')).toBe('**.***.***/****-**');
      expect(await taxId('DNI', '12345678')).toBe('*****678');
      expect(await taxId('RUT', '12.345.678-5')).toBe('*********8-5');
      expect(await taxId('CE', '12345')).toBe('*****');
      expect(await account('0021234567890')).toBe('*********7890');
      expect(await account('123456')).toBe('******');
    } finally {
      await close();
    }
  });
});
