import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';

describe.each(ENGINES)('the indexes of payments on %s (migration 0047)', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('none reads status, in its columns, expressions or predicate: a status change alone can update the row heap-only', async () => {
    const { rows } = await sql<{ name: string; definition: string }>`
      select i.relname as name, pg_get_indexdef(x.indexrelid) as definition
      from pg_index as x join pg_class as i on i.oid = x.indexrelid
      where x.indrelid = 'payments'::regclass`.execute(database.handle.db);
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.filter((r) => /\bstatus\b/.test(r.definition))).toEqual([]);
    expect(rows.map((r) => r.name)).toEqual(
      expect.arrayContaining(['payments_open_pre_authorized_idx', 'payments_waiting_checkout_idx', 'payments_compensating_checkout_idx']),
    );
  });

  it('keeps room on each page for the new version of a row (fillfactor 70)', async () => {
    const { rows } = await sql<{ options: string[] | null }>`select reloptions as options from pg_class where oid = 'payments'::regclass`.execute(database.handle.db);
    expect(rows[0]?.options).toContain('fillfactor=70');
  });
});
