import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';

describe.runIf(ENGINES.includes('postgres'))('PostgreSQL statements prepared per connection', () => {
  let database: TestDatabase;
  let single: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One connection, so every statement below runs on the session whose prepared statements we read.
    single = await openDatabase({ engine: 'postgres', url: database.url as string, poolSize: 1 });
  });
  afterAll(async () => {
    await single.close();
    await database.drop();
  });

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(single.db)).rows.map((r) => r.statement);

  it('prepares a parameterised statement from its second run on and answers the same rows', async () => {
    const lookup = (key: string) => single.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    await single.db.insertInto('settings').values({ key: 'prepared-test', value: 'v' }).execute();
    expect(await lookup('prepared-test')).toEqual({ value: 'v' });
    expect((await prepared()).some((s) => s.includes('from "settings"'))).toBe(false);
    expect(await lookup('prepared-test')).toEqual({ value: 'v' });
    expect(await lookup('absent')).toBeUndefined();
    expect((await prepared()).filter((s) => s.includes('from "settings"'))).toHaveLength(1);
  });

  it('keeps int8 as bigint through prepared statements', async () => {
    const big = () => sql<{ n: bigint }>`select ${'9007199254740993'}::int8 as n`.execute(single.db);
    await big();
    expect((await big()).rows[0]?.n).toBe(9007199254740993n);
  });

  it('never prepares statements without parameters (transaction control, DDL)', async () => {
    await single.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
    });
    await single.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
    });
    expect((await prepared()).some((s) => /^(begin|commit|select 1)$/i.test(s.trim()))).toBe(false);
  });
});
