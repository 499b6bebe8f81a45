import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database';
import { up } from './0025-checkout-card-attempt';

describe('migration 0025: the card attempt claim leaves the payment-status column', () => {
  it('turns a STARTING marker into a claim from its last write, with no payment status, and leaves other sessions alone', async () => {
    const { db, close } = await openDatabase({ engine: 'pglite' });
    try {
      // Only the columns the migration reads and writes, as 0009 created them.
      await sql`create table checkout_sessions (checkout_id text primary key, current_payment_token uuid, current_payment_status text, updated_at timestamptz not null)`.execute(db);
      const token = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
      await sql`insert into checkout_sessions values
        ('first-card', null, 'STARTING', '2026-01-02T03:04:05Z'),
        ('after-pix', ${token}, 'STARTING', '2026-01-02T03:04:06Z'),
        ('paid', ${token}, 'PAID', '2026-01-02T03:04:07Z')`.execute(db);
      await up(db as unknown as Kysely<unknown>);
      const rows = await sql<{ checkout_id: string; current_payment_status: string | null; card_attempt_started_at: Date | null }>`
        select checkout_id, current_payment_status, card_attempt_started_at from checkout_sessions order by checkout_id`.execute(db);
      expect(rows.rows).toEqual([
        { checkout_id: 'after-pix', current_payment_status: null, card_attempt_started_at: new Date('2026-01-02T03:04:06Z') },
        { checkout_id: 'first-card', current_payment_status: null, card_attempt_started_at: new Date('2026-01-02T03:04:05Z') },
        { checkout_id: 'paid', current_payment_status: 'PAID', card_attempt_started_at: null },
      ]);
    } finally {
      await close();
    }
  });
});
