import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database';
import { eventsInsertFrom, recordEvent, recordEvents, type NewEvent } from '../src/events/outbox';
import { enqueue, enqueueMany, jobsInsertFrom, type EnqueueOptions } from '../src/jobs/queue';
import { ledgerInsertFrom, postJournal, postJournals, UnbalancedJournalError, type JournalInput } from '../src/ledger/ledger';
import { createMerchant } from '../src/merchants/create-merchant';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';

/**
 * Events, ledger journals and jobs each have one writer with three forms: one row, many rows, and the
 * same INSERT inside a larger statement (the card hot path's shared statements). Every form must write
 * the same rows and honour every option of the single form.
 */
for (const engine of ENGINES) {
  describe(`one writer each for events, journals and jobs [${engine}]`, () => {
    let database: TestDatabase | undefined;
    let merchantId = '';
    const db = (): Db => {
      if (!database) throw new Error('database not open');
      return database.handle.db;
    };
    beforeAll(async () => {
      database = await createTestDatabase(engine);
      merchantId = (await createMerchant(db(), 'Writer')).merchant_id;
    });
    afterAll(async () => {
      await database?.drop();
    });

    /** Runs `insert` as a CTE after a one-row anchor whose `resource_id` is `resourceId`. */
    const after = (resourceId: string, insert: (anchor: string, key: string) => RawBuilder<unknown>) =>
      sql`with anchor as (select ${resourceId}::text as resource_id), written as (${insert('anchor', 'resource_id')}) select 1 as done`.execute(db());

    it('enqueues jobs with every option in each form, once per unique key', async () => {
      const runAt = new Date('2031-05-06T07:08:09.123Z');
      const options = (form: string): EnqueueOptions => ({ runAt, uniqueKey: `test.write:${form}`, maxAttempts: 3 });
      await enqueue(db(), 'test.write', { form: 'one' }, options('one'));
      await enqueueMany(db(), [{ kind: 'test.write', payload: { form: 'many' }, options: options('many') }]);
      await after('r-1', (anchor, key) => jobsInsertFrom(anchor, key, [{ resourceId: 'r-1', kind: 'test.write', payload: { form: 'after' }, options: options('after') }]));
      // A second job with a pending unique key is not enqueued, whichever form writes it.
      await enqueue(db(), 'test.write', { form: 'again' }, options('many'));
      await enqueueMany(db(), [{ kind: 'test.write', payload: { form: 'again' }, options: options('after') }]);
      await after('r-2', (anchor, key) => jobsInsertFrom(anchor, key, [{ resourceId: 'r-2', kind: 'test.write', payload: { form: 'again' }, options: options('one') }]));
      // Nothing is enqueued where the anchor has no row of the job's resource.
      await after('r-3', (anchor, key) => jobsInsertFrom(anchor, key, [{ resourceId: 'elsewhere', kind: 'test.write', payload: { form: 'missed' } }]));
      const jobs = await db().selectFrom('jobs').select(['payload', 'run_at', 'unique_key', 'max_attempts', 'attempts']).where('kind', '=', 'test.write').orderBy('id').execute();
      expect(jobs).toEqual(
        ['one', 'many', 'after'].map((form) => ({ payload: { form }, run_at: runAt, unique_key: `test.write:${form}`, max_attempts: 3, attempts: 0 })),
      );
      // Without options: due now, no unique key, the default attempt limit.
      const before = Date.now();
      await enqueueMany(db(), [{ kind: 'test.defaults', payload: {} }]);
      const plain = await db().selectFrom('jobs').select(['run_at', 'unique_key', 'max_attempts']).where('kind', '=', 'test.defaults').executeTakeFirstOrThrow();
      expect(plain).toMatchObject({ unique_key: null, max_attempts: 25 });
      expect(Math.abs(plain.run_at.getTime() - before)).toBeLessThan(5_000);
    });

    it('records the same event in each form, with callback targets kept once and empty ones dropped', async () => {
      const event = (resourceId: string): NewEvent => ({
        merchantId,
        type: 'payment.status_changed',
        resourceType: 'payment',
        resourceId,
        data: { status: 'PAID', amount: 10.5, nested: { list: [1, 2] } },
        notificationUrls: ['https://a.example/cb', null, '', undefined, 'https://a.example/cb', 'https://b.example/cb'],
      });
      const id = await recordEvent(db(), event('e-one'));
      await recordEvents(db(), [event('e-many-1'), event('e-many-2')]);
      await recordEvents(db(), []);
      await after('e-after', (anchor, key) => eventsInsertFrom(anchor, key, [event('e-after'), event('e-not-anchored')]));
      const rows = await db()
        .selectFrom('events')
        .select(['id', 'resource_id', 'type', 'resource_type', 'data', 'notification_urls'])
        .where('merchant_id', '=', merchantId)
        .orderBy('resource_id')
        .execute();
      expect(rows.map((r) => r.resource_id)).toEqual(['e-after', 'e-many-1', 'e-many-2', 'e-one']);
      expect(rows.find((r) => r.resource_id === 'e-one')?.id).toBe(id);
      for (const row of rows) {
        expect(row).toMatchObject({ type: 'payment.status_changed', resource_type: 'payment', data: event('').data, notification_urls: ['https://a.example/cb', 'https://b.example/cb'] });
      }
      // The callback fan-out, in the same statement: one pending delivery per event and target, naming the
      // resource, in the events' order (their sequence numbers), none for an event not written.
      const deliveries = await db()
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select(['e.resource_id', 'e.sequence', 'd.merchant_id', 'd.url', 'd.resource_key', 'd.status'])
        .where('d.merchant_id', '=', merchantId)
        .orderBy('d.id')
        .execute();
      expect(deliveries.map((d) => Number(d.sequence))).toEqual(deliveries.map((d) => Number(d.sequence)).sort((a, b) => a - b));
      expect(deliveries.map(({ sequence: _sequence, ...d }) => d)).toEqual(
        ['e-one', 'e-many-1', 'e-many-2', 'e-after'].flatMap((resourceId) =>
          ['https://a.example/cb', 'https://b.example/cb'].map((url) => ({ resource_id: resourceId, merchant_id: merchantId, url, resource_key: `payment:${resourceId}`, status: 'PENDING' })),
        ),
      );
      // The outbox alone makes them: the only trigger left on events numbers them (migration 0028-callback-fanout).
      const triggers = await sql<{ tgname: string }>`select tgname from pg_trigger where tgrelid = 'events'::regclass and not tgisinternal`.execute(db());
      expect(triggers.rows.map((t) => t.tgname)).toEqual(['events_sequence']);
      // An event without a callback target has no delivery.
      const quiet = await recordEvent(db(), { ...event('e-quiet'), notificationUrls: [null] });
      expect(await db().selectFrom('webhook_deliveries').select('id').where('event_id', '=', quiet).execute()).toEqual([]);
    });

    it('writes the same balanced journal in each form, and none of a set with one unbalanced journal', async () => {
      const at = new Date('2030-01-02T03:04:05.678Z');
      const journal = (resourceId: string): JournalInput => ({
        merchantId,
        kind: 'test.journal',
        currency: 'BRL',
        resourceId,
        at,
        balance: { type: 'PAYMENT', sourceId: resourceId },
        lines: [
          { account: 'processor_receivable', amountMinor: 1050n },
          { account: 'merchant_payable', amountMinor: -1000n, availableOn: '2030-01-03', feeMinor: 50n },
          { account: 'fee_revenue', amountMinor: -50n },
          { account: 'payout_clearing', amountMinor: 0n },
        ],
      });
      const one = await postJournal(db(), journal('j-one'));
      const many = await postJournals(db(), [journal('j-many'), { ...journal('j-zero'), lines: [{ account: 'fee_revenue', amountMinor: 0n }] }]);
      expect(many[1]).toBeNull();
      await after('j-after', (anchor, key) => ledgerInsertFrom(anchor, key, [journal('j-after')]));
      const unbalanced = { ...journal('j-bad'), lines: [{ account: 'fee_revenue' as const, amountMinor: 1n }] };
      await expect(postJournals(db(), [journal('j-good'), unbalanced])).rejects.toBeInstanceOf(UnbalancedJournalError);
      const rows = await db()
        .selectFrom('ledger_entries')
        .select(['journal_id', 'resource_id', 'kind', 'account', 'amount_minor', 'currency', 'created_at'])
        .where('merchant_id', '=', merchantId)
        .orderBy('resource_id')
        .orderBy('amount_minor')
        .execute();
      expect([...new Set(rows.map((r) => r.resource_id))]).toEqual(['j-after', 'j-many', 'j-one']);
      expect(rows.filter((r) => r.resource_id === 'j-one').every((r) => r.journal_id === one)).toBe(true);
      expect(rows.filter((r) => r.resource_id === 'j-many').every((r) => r.journal_id === many[0])).toBe(true);
      for (const resourceId of ['j-one', 'j-many', 'j-after']) {
        expect(rows.filter((r) => r.resource_id === resourceId).map(({ kind, account, amount_minor, currency, created_at }) => ({ kind, account, amount_minor, currency, created_at }))).toEqual([
          { kind: 'test.journal', account: 'merchant_payable', amount_minor: -1000n, currency: 'BRL', created_at: at },
          { kind: 'test.journal', account: 'fee_revenue', amount_minor: -50n, currency: 'BRL', created_at: at },
          { kind: 'test.journal', account: 'processor_receivable', amount_minor: 1050n, currency: 'BRL', created_at: at },
        ]);
      }
      // Each form wrote the journal's balance transaction with it, and the unbalanced set none.
      const balance = await db()
        .selectFrom('balance_transactions')
        .select(['journal_id', 'type', 'source_id', 'amount_minor', 'fee_minor', 'net_minor', 'bucket', sql<string>`available_on::text`.as('available_on')])
        .where('merchant_id', '=', merchantId)
        .orderBy('source_id')
        .execute();
      expect(balance.map((b) => b.source_id)).toEqual(['j-after', 'j-many', 'j-one']);
      for (const b of balance) expect(b).toMatchObject({ type: 'PAYMENT', amount_minor: 1050n, fee_minor: 50n, net_minor: 1000n, bucket: 'BALANCE', available_on: '2030-01-03' });
      expect(balance.find((b) => b.source_id === 'j-one')?.journal_id).toBe(one);
      // A journal that moves a merchant's balance without a balance type, or an undated payable line, is refused.
      await expect(postJournal(db(), { ...journal('j-untyped'), balance: undefined })).rejects.toBeInstanceOf(UnbalancedJournalError);
      const undated = { ...journal('j-undated'), lines: journal('j-undated').lines.map((l) => ({ ...l, availableOn: undefined })) };
      await expect(postJournal(db(), undated)).rejects.toBeInstanceOf(UnbalancedJournalError);
    });
  });
}
