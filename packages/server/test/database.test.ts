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

describe('PGlite statements prepared once (db/pglite-dialect.ts)', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await openDatabase({ engine: 'pglite' });
    await sql`create table prepared_probe (id int primary key, amount int8 not null, note text, at timestamptz not null default now(), tags text[])`.execute(handle.db);
  });
  afterAll(async () => {
    await handle.close();
  });

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(handle.db)).rows.map((r) => r.statement);

  it('prepares a parameterised statement from its second run on and answers the same rows, typed', async () => {
    await handle.db.insertInto('prepared_probe' as never).values({ id: 1, amount: 9007199254740993n, note: null, tags: ['a', 'b'] } as never).execute();
    const read = (id: number) => sql<{ id: number; amount: bigint; note: string | null; at: Date; tags: string[] }>`select * from prepared_probe where id = ${id}`.execute(handle.db);
    const first = (await read(1)).rows;
    expect((await prepared()).some((s) => s.includes('from prepared_probe'))).toBe(false);
    const second = (await read(1)).rows;
    expect((await prepared()).filter((s) => s.includes('from prepared_probe'))).toHaveLength(1);
    expect(second).toEqual(first);
    expect(second[0]).toMatchObject({ id: 1, amount: 9007199254740993n, note: null, tags: ['a', 'b'] });
    expect(second[0]?.at).toBeInstanceOf(Date);
    expect((await read(2)).rows).toEqual([]);
  });

  it('counts the rows a prepared update changed', async () => {
    await handle.db.insertInto('prepared_probe' as never).values([{ id: 2, amount: 5n }, { id: 3, amount: 5n }] as never).execute();
    const bump = () => sql`update prepared_probe set amount = amount + ${1} where id between ${2} and ${3}`.execute(handle.db);
    await bump();
    expect((await bump()).numAffectedRows).toBe(2n);
  });

  it('keeps the session usable after an error in a prepared statement, and rolls back its transaction', async () => {
    const insert = (id: number) => sql`insert into prepared_probe (id, amount) values (${id}, ${1})`.execute(handle.db);
    await insert(10);
    await expect(insert(10)).rejects.toMatchObject({ code: '23505' });
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await sql`insert into prepared_probe (id, amount) values (${11}, ${1})`.execute(trx);
        await sql`insert into prepared_probe (id, amount) values (${10}, ${1})`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const ids = (await sql<{ id: number }>`select id from prepared_probe where id >= ${10} order by id`.execute(handle.db)).rows.map((r) => r.id);
    expect(ids).toEqual([10]);
  });

  it('prepares a statement again when the table it reads has changed shape', async () => {
    const read = () => sql<Record<string, unknown>>`select * from prepared_probe where id = ${1}`.execute(handle.db);
    await read();
    await read();
    await sql`alter table prepared_probe add column extra text not null default 'x'`.execute(handle.db);
    expect((await read()).rows[0]).toMatchObject({ id: 1, extra: 'x' });
  });
});

describe.each(ENGINES)('generic plans on %s (db/database.ts PLAN_CACHE_MODE)', (engine) => {
  let database: TestDatabase | undefined;
  let single: DatabaseHandle;
  beforeAll(async () => {
    if (engine === 'postgres') {
      database = await createTestDatabase('postgres');
      single = await openDatabase({ engine: 'postgres', url: database.url as string, poolSize: 1 });
    } else {
      single = await openDatabase({ engine: 'pglite' });
    }
    await sql`create table plan_probe (token uuid primary key, note text not null)`.execute(single.db);
    await sql`insert into plan_probe select gen_random_uuid(), 'n' || g from generate_series(1, 500) g`.execute(single.db);
  });
  afterAll(async () => {
    await single.close();
    await database?.drop();
  });

  it('plans a batched key look-up once, generically, whatever the size of the batch', async () => {
    const tokens = (await sql<{ token: string }>`select token from plan_probe order by note limit 40`.execute(single.db)).rows.map((r) => r.token);
    // The shape of lib/batch.ts's shared reads: one text, a batch of keys of any length as its one array.
    const read = (keys: string[]) => sql<{ note: string }>`select note from plan_probe where token = any(${keys}::uuid[])`.execute(single.db);
    for (const size of [1, 4, 2, 9, 3, 1, 7, 5, 2, 40]) expect((await read(tokens.slice(0, size))).rows).toHaveLength(size);
    const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`select generic_plans::text, custom_plans::text from pg_prepared_statements
      where statement like '%from plan_probe where token = any%'`.execute(single.db);
    // Prepared from its second run on (or its first, where this process ran the text before), each run
    // on the one generic plan; under PostgreSQL's default the planner would cost custom plans for each
    // batch cheaper and plan every run again.
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]?.generic_plans)).toBeGreaterThanOrEqual(9);
    expect(rows[0]?.custom_plans).toBe('0');
  });

  it('lets a transaction ask for custom plans again, as report exports do', async () => {
    const mode = (db: typeof single.db) => sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db).then((r) => r.rows[0]?.plan_cache_mode);
    expect(await mode(single.db)).toBe('force_generic_plan');
    const inside = await single.db.transaction().execute(async (trx) => {
      await sql`set local plan_cache_mode = auto`.execute(trx);
      return mode(trx);
    });
    expect(inside).toBe('auto');
    expect(await mode(single.db)).toBe('force_generic_plan');
  });
});
