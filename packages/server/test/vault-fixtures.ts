// Helpers of the vault's tests (vault.test.ts, vault-at-rest.test.ts).
import { sql } from 'kysely';
import { expect } from 'vitest';
import { VALID_CPF } from './fixtures';
import type { ApiResponse, TestMerchant, TestService } from './harness';

/** Fails `/checkout/card` verification as a wrong CVV would (CONTRACTS.md). */
export const CVV_FAILURE_CARD = '4000000000000127';

export function personBody(overrides: Record<string, unknown> = {}) {
  return { name: 'Maria Silva', email: 'maria@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF', ...overrides };
}

/** A card that expires some years after the merchant's current year; dates are never hard-coded. */
export function cardBody(personId: string, overrides: Record<string, unknown> = {}) {
  return {
    public_person_id: personId,
    number: '4111111111111111',
    exp_month: 12,
    exp_year: new Date().getUTCFullYear() + 3,
    cvv: '123',
    holder_name: 'MARIA SILVA',
    ...overrides,
  };
}

export async function newPerson(service: TestService, merchant: TestMerchant): Promise<string> {
  const response = await service.post('/checkout/person', personBody(), { token: merchant.token });
  expect(response.status, response.text).toBe(200);
  return response.body.public_person_id as string;
}

export async function cardsOf(service: TestService, merchantId: string) {
  return service.ctx.db.selectFrom('cards').selectAll().where('merchant_id', '=', merchantId).execute();
}

export async function personsOf(service: TestService, merchantId: string) {
  return service.ctx.db.selectFrom('persons').selectAll().where('merchant_id', '=', merchantId).execute();
}

export function expectErrors(response: ApiResponse, status: number, errors: { code: string; description: unknown }[]) {
  expect(response.status, response.text).toBe(status);
  expect(response.body.errors).toEqual(errors);
}

/** Every row of every table of the database, as JSON text. */
export async function wholeDatabaseText(service: TestService): Promise<string> {
  const db = service.ctx.db;
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  expect(tables.rows.map((t) => t.table_name)).toContain('cards');
  const texts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table_name)} t`.execute(db);
    texts.push(...rows.rows.map((r) => `${table_name}: ${r.row}`));
  }
  return texts.join('\n');
}
