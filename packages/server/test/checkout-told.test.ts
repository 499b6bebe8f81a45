import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { sweepCheckouts, dueCheckouts } from '../src/checkout/sweep-checkouts';
import type { Db } from '../src/db/database';
import { jobHandlers } from '../src/job-registry';
import { JobWorker } from '../src/jobs/queue';
import { applyOutcomes, loadOperations } from '../src/payments/apply-outcome';
import { describeOperation } from '../src/payments/operations';
import { PAYMENT_CHANGED_JOB } from '../src/payments/payment-followups';
import { changeStatus, lockPayment } from '../src/payments/payment-record';
import { describeEachEngine } from './harness';
import { CARD_FORM, generate } from './checkout-fixtures';

/**
 * Checkout is told, not polling (docs/checkout.md): a payment's status change reaches its session
 * through a payment.changed job enqueued in the change's own transaction; reading a session (the
 * merchant's GET, the page, its poll) writes and locks nothing; the sweep is left with what time changes.
 */

/** The row versions of a session and of a payment: xmin moves with every write, xmax with every row lock too. */
async function rowVersions(db: Db, checkoutId: string, paymentToken: string) {
  const session = await sql<{ xmin: string; xmax: string }>`select xmin::text as xmin, xmax::text as xmax from checkout_sessions where checkout_id = ${checkoutId}`.execute(db);
  const payment = await sql<{ xmin: string; xmax: string }>`select xmin::text as xmin, xmax::text as xmax from payments where payment_token = ${paymentToken}`.execute(db);
  const events = await db.selectFrom('events').select(db.fn.countAll<string>().as('n')).where('resource_id', 'in', [checkoutId, paymentToken]).executeTakeFirstOrThrow();
  return { session: session.rows[0], payment: payment.rows[0], events: Number(events.n) };
}

/** Jobs of kind payment.changed for a payment, as the caller's transaction sees them. */
async function paymentChangedJobs(db: Db, paymentToken: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from jobs where kind = ${PAYMENT_CHANGED_JOB} and payload->>'paymentToken' = ${paymentToken}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

async function waitForRow<T>(read: () => Promise<T>, until: (row: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await read();
    if (until(row)) return row;
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

class Rollback extends Error {}

describeEachEngine('checkout is told', (service) => {
  it('reads a session without writing or locking: GET /checkout/<id>, the page and its poll leave the rows as they were', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: ['PIX', 'BOLETO'], pixDirect: true, expiresIn: 600 });
    const token = created.payment.payment_token as string;
    const db = service().ctx.db;
    const reads = async () => {
      for (let i = 0; i < 3; i += 1) {
        expect((await service().get(`/checkout/${created.checkout_id}`, { token: m.token })).status).toBe(200);
        expect((await service().get(`/pay/${created.checkout_id}`)).status).toBe(200);
        expect((await service().get(`/pay/${created.checkout_id}/status`)).status).toBe(200);
      }
    };
    // Whatever follow-up of generation there was has run: the rows stand still.
    await waitForRow(() => paymentChangedJobs(db, token), (n) => n === 0);
    const before = await rowVersions(db, created.checkout_id, token);
    await reads();
    expect(await rowVersions(db, created.checkout_id, token)).toEqual(before);

    // A payment moved behind the session's back (as if its job had not run yet): reads do not apply it
    // (they used to), so they still write nothing.
    await db.updateTable('payments').set({ status: 'CANCELED' }).where('payment_token', '=', token).execute();
    const stale = await rowVersions(db, created.checkout_id, token);
    await reads();
    expect(await rowVersions(db, created.checkout_id, token)).toEqual(stale);
    expect((await service().get(`/pay/${created.checkout_id}/status`)).body).toMatchObject({ status: 'PROCESSING', payment_status: 'CREATED' });
  });

  it('enqueues payment.changed in the transaction of the status change: there before it commits, gone with a rollback', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'CREDITCARD' });
    const token = created.payment.payment_token as string;
    const db = service().ctx.db;
    await waitForRow(() => paymentChangedJobs(db, token), (n) => n === 0);
    // A plain status change (changeStatus) and a processor's answer (applyOutcomes), rolled back.
    await expect(
      db.transaction().execute(async (trx) => {
        const waiting = await lockPayment(trx, m.merchant_id, token);
        if (!waiting) throw new Error('no payment');
        const processing = await changeStatus(trx, waiting, 'PROCESSING', new Date());
        expect(await paymentChangedJobs(trx, token)).toBe(1);
        const { row } = describeOperation({ payment: processing, kind: 'authorize', amountMinor: processing.amount_minor, at: new Date() });
        await trx.insertInto('payment_operations').values(row).execute();
        const [loaded] = await loadOperations(trx, [row.id]);
        if (!loaded) throw new Error('no operation');
        const [declined] = await applyOutcomes(trx, [{ ...loaded, result: { status: 'DECLINED', code: '51', description: 'declined' }, at: new Date() }]);
        expect(declined?.status).toBe('DECLINED');
        expect(await paymentChangedJobs(trx, token)).toBe(2);
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
    expect(await paymentChangedJobs(db, token)).toBe(0);
    const session = await db.selectFrom('checkout_sessions').select(['status', 'current_payment_status']).where('checkout_id', '=', created.checkout_id).executeTakeFirstOrThrow();
    expect(session).toEqual({ status: 'PROCESSING', current_payment_status: 'CREATED' });
    // A payment of no session tells nobody.
    const other = await generate(service(), m, { method: 'PIX' });
    await waitForRow(() => paymentChangedJobs(db, other.payment.payment_token), (n) => n === 0);
    await db.updateTable('payments').set({ checkout_id: null }).where('payment_token', '=', other.payment.payment_token).execute();
    await expect(
      db.transaction().execute(async (trx) => {
        const open = await lockPayment(trx, m.merchant_id, other.payment.payment_token);
        if (!open) throw new Error('no payment');
        await changeStatus(trx, open, 'CANCELED', new Date());
        expect(await paymentChangedJobs(trx, other.payment.payment_token)).toBe(0);
        throw new Rollback();
      }),
    ).rejects.toBeInstanceOf(Rollback);
  });

  it('a lapsed card claim is released by the sweep, found by its time', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: ['PIX', 'CREDITCARD'] });
    const { now } = (await service().get('/sandbox/clock', { token: m.token })).body;
    await service().ctx.db.updateTable('checkout_sessions').set({ status: 'PROCESSING', card_attempt_started_at: new Date(now) }).where('checkout_id', '=', created.checkout_id).execute();
    expect((await dueCheckouts(service().ctx.db, 1000)).map((d) => d.checkout_id)).not.toContain(created.checkout_id);
    expect((await service().get(`/pay/${created.checkout_id}/status`)).body.version).toBe('PROCESSING|-|card-attempt');
    // The clock control runs the sweep at once.
    await service().post('/sandbox/clock/advance', { seconds: 121 }, { token: m.token });
    const row = await service().ctx.db.selectFrom('checkout_sessions').select(['card_attempt_started_at']).where('checkout_id', '=', created.checkout_id).executeTakeFirstOrThrow();
    expect(row.card_attempt_started_at).toBeNull();
    expect((await service().get(`/pay/${created.checkout_id}/status`)).body.version).toBe('PROCESSING|-|-');
  });
});

describeEachEngine('checkout is told, with no sweep running', (service) => {
  it("a card payment's outcome reaches its session through the job alone, with no read and no sweep", async () => {
    // Only jobs run from here on: the periodic tasks (the checkout sweep among them) are stopped.
    await service().background.stop();
    const jobs = new JobWorker(service().ctx.db, jobHandlers(service().ctx), { engine: service().engine, pollMs: 20, claimIntervalMs: 10 });
    const unsubscribe = service().ctx.workerSignal.subscribe(() => jobs.poke());
    jobs.start();
    try {
      const m = await service().merchant();
      const db = service().ctx.db;
      const sessionRow = (checkoutId: string) => db.selectFrom('checkout_sessions').select(['status', 'current_payment_status', 'end_reason']).where('checkout_id', '=', checkoutId).executeTakeFirstOrThrow();
      for (const [form, status, paymentStatus] of [
        [{ ...CARD_FORM }, 'PAID', 'PAID'],
        [{ ...CARD_FORM, number: '4000000000000002' }, 'CANCELED', 'DECLINED'],
      ] as const) {
        const single = await generate(service(), m, { method: 'CREDITCARD' });
        expect((await service().post(`/pay/${single.checkout_id}/card`, form)).status).toBe(200);
        expect(await waitForRow(() => sessionRow(single.checkout_id), (row) => row.status !== 'PROCESSING')).toEqual({ status, current_payment_status: paymentStatus, end_reason: paymentStatus });
      }
      // Multi-method: the card payment is a new one, sent before it joins the session.
      const multi = await generate(service(), m, { method: 'ALL' });
      const sent = await service().post(`/pay/${multi.checkout_id}/card`, CARD_FORM);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(await waitForRow(() => sessionRow(multi.checkout_id), (row) => row.status === 'PAID')).toEqual({ status: 'PAID', current_payment_status: 'PAID', end_reason: 'PAID' });
      const events = await db.selectFrom('events').select('data').where('resource_id', '=', multi.checkout_id).where('type', '=', 'checkout.status_changed').execute();
      expect(events.map((e) => (e.data as { status: string }).status).sort()).toEqual(['PAID', 'PROCESSING']);

      // Past its expiry, a session is ended by the sweep, not by its readers: until the sweep runs, reads
      // write nothing (they used to expire it themselves).
      const pix = await generate(service(), m, { method: 'PIX' });
      const token = pix.payment.payment_token as string;
      await waitForRow(() => paymentChangedJobs(db, token), (n) => n === 0);
      const past = new Date(Date.now() - 60_000);
      await db.updateTable('payments').set({ expires_at: past }).where('payment_token', '=', token).execute();
      await db.updateTable('checkout_sessions').set({ expires_at: past }).where('checkout_id', '=', pix.checkout_id).execute();
      const before = await rowVersions(db, pix.checkout_id, token);
      for (const path of [`/pay/${pix.checkout_id}`, `/pay/${pix.checkout_id}/status`]) expect((await service().get(path)).status).toBe(200);
      expect((await service().get(`/checkout/${pix.checkout_id}`, { token: m.token })).body.status).toBe('PROCESSING');
      expect(await rowVersions(db, pix.checkout_id, token)).toEqual(before);
      expect((await dueCheckouts(db, 1000)).map((d) => d.checkout_id)).toContain(pix.checkout_id);
      await sweepCheckouts(service().ctx);
      expect(await sessionRow(pix.checkout_id)).toEqual({ status: 'CANCELED', current_payment_status: 'EXPIRED', end_reason: 'EXPIRED' });
    } finally {
      unsubscribe();
      await jobs.stop();
    }
  });
});
