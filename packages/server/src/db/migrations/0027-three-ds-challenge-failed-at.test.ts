import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database';
import { down, up } from './0027-three-ds-challenge-failed-at';

describe('migration 0027: a failed challenge stamps challenge_failed_at', () => {
  it('adds the column, fills it from updated_at for CHALLENGE_FAILED rows only, and drops it on the way down', async () => {
    const { db, close } = await openDatabase({ engine: 'pglite' });
    try {
      // Only the columns the migration reads and writes, as 0008 created them.
      await sql`create table three_ds_authentications (id text primary key, status text not null, updated_at timestamptz not null)`.execute(db);
      await sql`insert into three_ds_authentications values
        ('failed', 'CHALLENGE_FAILED', '2026-01-02T03:04:05.678Z'),
        ('pending', 'CHALLENGE_PENDING', '2026-01-02T03:04:06Z'),
        ('used', 'USED', '2026-01-02T03:04:07Z'),
        ('unenrolled', 'UNENROLLED', '2026-01-02T03:04:08Z')`.execute(db);
      await up(db as unknown as Kysely<unknown>);
      const rows = await sql<{ id: string; challenge_failed_at: Date | null }>`select id, challenge_failed_at from three_ds_authentications order by id`.execute(db);
      expect(rows.rows).toEqual([
        { id: 'failed', challenge_failed_at: new Date('2026-01-02T03:04:05.678Z') },
        { id: 'pending', challenge_failed_at: null },
        { id: 'unenrolled', challenge_failed_at: null },
        { id: 'used', challenge_failed_at: null },
      ]);
      await down(db as unknown as Kysely<unknown>);
      const columns = await sql<{ column_name: string }>`
        select column_name from information_schema.columns where table_name = 'three_ds_authentications' order by column_name`.execute(db);
      expect(columns.rows.map((c) => c.column_name)).toEqual(['id', 'status', 'updated_at']);
    } finally {
      await close();
    }
  });
});
