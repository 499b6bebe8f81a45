import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobWorker, RetryLater, enqueue, enqueueMany, type Job } from '../src/jobs/queue';
import { assertMove, IllegalMoveError } from '../src/lib/state-machine';
import { PAYOUT_STATES } from '../src/payouts/states';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { crashAfterCommit, customerWithCard, operationJobs, paymentBody, settled, waitForStatus } from './fixtures';
import { createTestDatabase, describeEachEngine, ENGINES, type TestService } from './harness';
import { PROCESS_PAYMENT_JOB } from '../src/payments/payment-job';
import { SETTLE_REFUND_JOB } from '../src/refunds/settle-refund';

/**
 * What the service promises when parts of the world fail (docs/architecture.md, "Faults"), on both
 * engines: bounded retries with a deadline, stuck operations reported, a bounded window of jobs with
 * renewed leases, idempotency claims taken over after a crash, sealed idempotent answers, and
 * callbacks in order per resource. The process-level faults (kill -9, terminated connections) are in
 * faults.test.ts.
 */

const DEADLINE_MS = 1500;

async function waitFor<T>(what: string, read: () => Promise<T>, until: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (until(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
    await sleep(50);
  }
}

/** Makes due every retry of the merchant's payment jobs, as time passing would. */
async function runRetriesNow(service: TestService) {
  await service.ctx.db.updateTable('jobs').set({ run_at: new Date() }).where('kind', '=', PROCESS_PAYMENT_JOB).execute();
  service.ctx.workerSignal.poke();
}

describeEachEngine(
  'bounded retries',
  (service) => {
    it('ends a payment ERROR (PROCESSOR_UNAVAILABLE) when the processor stays unreachable past the deadline', async () => {
      const m = await service().merchant();
      const ids = await customerWithCard(service(), m);
      await service().post('/sandbox/processor/faults', { operation: 'authorize', fault: 'UNAVAILABLE', times: 1000 }, { token: m.token });
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
      expect(sent.status, sent.text).toBe(200);
      const token = sent.body.payment_token as string;
      // Retries keep it PROCESSING before the deadline …
      await sleep(300);
      expect((await service().get(`/transactionDetails/${token}`, { token: m.token })).body.general_info.transaction_status).toBe('PROCESSING');
      // … and the first retry after it gives up: nothing ever reached the processor.
      const details = await waitFor(
        'payment after the deadline',
        async () => {
          await runRetriesNow(service());
          return (await service().get(`/transactionDetails/${token}`, { token: m.token })).body;
        },
        (body) => body.general_info.transaction_status !== 'PROCESSING',
      );
      expect(details.general_info.transaction_status).toBe('ERROR');
      expect(JSON.stringify(details)).toContain('PROCESSOR_UNAVAILABLE');
      const operations = await service().ctx.db.selectFrom('sandbox_operations').selectAll().where('reference', '=', `${token}:authorize`).execute();
      expect(operations).toHaveLength(0);
      // The job leaves the queue once its payment is settled (finished jobs are deleted together, a moment later).
      const jobs = () => operationJobs(service().ctx.db, token);
      expect(await waitFor('the abandoned job', jobs, (left) => left.length === 0, 5_000)).toHaveLength(0);
    });

    it('reports an operation of unknown outcome past the deadline, keeps reconciling it, and settles it once the processor answers', async () => {
      const m = await service().merchant();
      const ids = await customerWithCard(service(), m);
      // The first attempt reaches the processor and its answer is lost; then its status queries fail too.
      await service().post('/sandbox/processor/faults', { operation: 'authorize', fault: 'TIMEOUT', times: 1 }, { token: m.token });
      await service().post('/sandbox/processor/faults', { operation: 'status', fault: 'UNAVAILABLE', times: 1000 }, { token: m.token });
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
      const token = sent.body.payment_token as string;
      const admin = { headers: { authorization: `Bearer ${service().ctx.adminToken}` } };
      const stuck = await waitFor(
        'stuck operation listed',
        async () => {
          await runRetriesNow(service());
          return (await service().get('/admin/stuck-operations', admin)).body.operations as { resource_id: string; outcome_unknown: boolean; stuck_since: string | null }[];
        },
        (operations) => operations.some((o) => o.resource_id === token && o.stuck_since !== null),
      );
      const entry = stuck.find((o) => o.resource_id === token);
      expect(entry?.outcome_unknown).toBe(true);
      // Never given up: still PROCESSING, since the processor may have charged the card.
      expect((await service().get(`/transactionDetails/${token}`, { token: m.token })).body.general_info.transaction_status).toBe('PROCESSING');
      const metrics = await service().get('/metrics', admin);
      expect(metrics.text).toMatch(/colibri_stuck_operations [1-9]/);
      // The processor comes back: the reconciling retry asks it and settles from its answer.
      await service().ctx.db.deleteFrom('sandbox_faults').where('merchant_id', '=', m.merchant_id).execute();
      await runRetriesNow(service());
      expect((await waitForStatus(service(), m, token, settled)).general_info.transaction_status).toBe('PAID');
      const after = (await service().get('/admin/stuck-operations', admin)).body.operations as { resource_id: string }[];
      expect(after.some((o) => o.resource_id === token)).toBe(false);
    });
  },
  { env: { COLIBRI_RETRY_DEADLINE_MS: String(DEADLINE_MS) } },
);

describeEachEngine('idempotency after a crash', (service) => {
  it('answers a retry with the payment the first run committed, once its lease lapsed', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const key = `crash-${Date.now()}`;
    const body = paymentBody(m, ids, { reference_id: key });
    const first = await service().post('/checkout/sendPayment', body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(200);
    await crashAfterCommit(service().ctx.db, key);
    const retry = await service().post('/checkout/sendPayment', body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.payment_token).toBe(first.body.payment_token);
    const payments = await service().ctx.db.selectFrom('payments').select('payment_token').where('reference_id', '=', key).execute();
    expect(payments).toHaveLength(1);
    // The taken-over key now holds the answer: a further retry replays it.
    const replay = await service().post('/checkout/sendPayment', body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.payment_token).toBe(first.body.payment_token);
  });

  it('runs the request once more when the crashed run committed nothing, and still makes one payment', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const key = `early-crash-${Date.now()}`;
    const body = paymentBody(m, ids, { reference_id: key });
    // The request's fingerprint, from a first run whose payment is then disowned: as if a process had
    // claimed the key and died before its insert, leaving a claim nobody renews and no payment.
    const first = await service().post('/checkout/sendPayment', body, { token: m.token, headers: { 'idempotency-key': key } });
    await service().ctx.db.updateTable('payments').set({ idempotency_key: null, reference_id: `${key}-disowned` }).where('payment_token', '=', first.body.payment_token).execute();
    await crashAfterCommit(service().ctx.db, key);
    const retry = await service().post('/checkout/sendPayment', body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.payment_token).not.toBe(first.body.payment_token);
    expect(await service().ctx.db.selectFrom('payments').select('payment_token').where('idempotency_key', '=', key).execute()).toHaveLength(1);
  });

  it('resumes a refund whose request died after reserving it: the settlement job sends it under its reference and completes it', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const db = service().ctx.db;
    // What phase 1 of POST /refund commits (the reservation, its history and its settlement job) and
    // nothing after: the process died before calling the processor.
    const now = new Date();
    const refund = await db
      .insertInto('refunds')
      .values({ payment_token: sent.body.payment_token, merchant_id: m.merchant_id, amount_minor: 150n, currency: 'BRL', status: 'REQUESTED', notification_url: null, destination: null, processor_id: null, error_code: null, error_description: null, created_at: now, updated_at: now, completed_at: null, failed_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await db.insertInto('refund_status_history').values({ refund_id: refund.refund_id, merchant_id: refund.merchant_id, status: 'REQUESTED', at: now }).execute();
    await enqueue(db, SETTLE_REFUND_JOB, { refundId: String(refund.refund_id), merchantId: m.merchant_id }, { uniqueKey: `${sent.body.payment_token}:refund:${refund.refund_id}` });
    service().ctx.workerSignal.poke();
    const done = await waitFor('resumed refund', async () => db.selectFrom('refunds').selectAll().where('refund_id', '=', refund.refund_id).executeTakeFirstOrThrow(), (r) => r.status === 'COMPLETED');
    expect(done.processor_id).not.toBeNull();
    const history = await db.selectFrom('refund_status_history').select('status').where('refund_id', '=', refund.refund_id).orderBy('id').execute();
    expect(history.map((h) => h.status)).toEqual(['REQUESTED', 'PROCESSING', 'COMPLETED']);
    const events = await db.selectFrom('events').select('data').where('resource_type', '=', 'refund').where('resource_id', '=', String(refund.refund_id)).orderBy('sequence').execute();
    expect(events.map((e) => (e.data as { refund_status: string }).refund_status)).toEqual(['REQUESTED', 'PROCESSING', 'COMPLETED']);
    const payment = (await service().get(`/transactionDetails/${sent.body.payment_token}`, { token: m.token })).body;
    expect(payment.general_info.transaction_status).toBe('PARTIALLY_REFUNDED');
    expect(await db.selectFrom('sandbox_operations').select('reference').where('reference', '=', `${sent.body.payment_token}:refund:${refund.refund_id}`).execute()).toHaveLength(1);
  });

  it('stores idempotent answers sealed: a new API secret is never in clear, and its replay shows it again', async () => {
    const admin = { authorization: `Bearer ${service().ctx.adminToken}`, 'idempotency-key': `merchant-${Date.now()}` };
    const created = await service().post('/admin/merchants', { name: 'Sealed Shop' }, { headers: admin });
    expect(created.status, created.text).toBe(201);
    const stored = await service().ctx.db.selectFrom('idempotency_keys').select('response_body').where('key', '=', admin['idempotency-key']).executeTakeFirstOrThrow();
    expect(stored.response_body).not.toContain(created.body.api_secret);
    expect(stored.response_body).not.toContain(created.body.webhook_secret);
    const replay = await service().post('/admin/merchants', { name: 'Sealed Shop' }, { headers: admin });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.api_secret).toBe(created.body.api_secret);
  });

  it('replays an answer with a fresh refresh_token', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const headers = { 'idempotency-key': `fresh-${Date.now()}` };
    const body = paymentBody(m, ids);
    const first = await service().post('/checkout/sendPayment', body, { token: m.token, headers });
    await sleep(1100); // tokens carry their issue time in seconds
    const replay = await service().post('/checkout/sendPayment', body, { token: m.token, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.payment_token).toBe(first.body.payment_token);
    expect(replay.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await service().get('/me', { token: replay.body.refresh_token })).status).toBe(200);
  });
});

describeEachEngine('callbacks in order per resource', (service) => {
  let receiver: CallbackReceiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("delivers a payment's later events only after its earlier ones, while the receiver fails the first, with a growing sequence", async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const path = `/ordered/${Date.now()}`;
    // The first callback fails three times; the PAID that follows must wait for it.
    receiver.on(path, (_request, seenBefore) => ({ status: seenBefore < 3 ? 500 : 204 }));
    const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { notification_url: `${receiver.url}${path}` }), { token: m.token });
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const refund = await service().post('/refund', { payment_token: sent.body.payment_token, amount: 1 }, { token: m.token });
    expect(refund.status, refund.text).toBe(200);
    // Only the payment's own events are ordered among themselves (the refund is a resource of its own).
    type Callback = { type: string; data: { status: string; sequence: number } };
    const ofPayment = () => receiver.at(path).map((c) => ({ status: c.status, callback: JSON.parse(c.body) as Callback })).filter((c) => c.callback.type === 'payment.status_changed');
    await receiver.waitFor(() => ofPayment().filter((c) => c.status === 204).length >= 3, 20_000, "the payment's three callbacks delivered");
    const delivered = ofPayment().filter((c) => c.status === 204).map((c) => c.callback.data);
    expect(delivered.map((d) => d.status)).toEqual(['PROCESSING', 'PAID', 'PARTIALLY_REFUNDED']);
    const sequences = delivered.map((d) => d.sequence);
    expect(sequences.every((n) => Number.isInteger(n))).toBe(true);
    expect(sequences[0]! < sequences[1]! && sequences[1]! < sequences[2]!).toBe(true);
    // Every attempt, failed ones included, came in order: nothing later was sent before the first got through.
    const attempts = ofPayment();
    const firstOk = attempts.findIndex((c) => c.status === 204);
    expect(firstOk).toBe(3);
    expect(attempts.slice(0, firstOk).every((c) => c.callback.data.status === 'PROCESSING')).toBe(true);
  });
}, { env: { COLIBRI_CALLBACK_RETRY_BASE_MS: '50' } });

for (const engine of ENGINES) {
  describe(`the job window [${engine}]`, () => {
    it('never has more jobs in flight than its bound, claims more as slots free, and runs each job once while renewing its lease', async () => {
      const database = await createTestDatabase(engine);
      const db = database.handle.db;
      let running = 0;
      let most = 0;
      const runs = new Map<string, number>();
      const handler = async (job: Job<{ n: number }>) => {
        running += 1;
        most = Math.max(most, running);
        runs.set(String(job.payload.n), (runs.get(String(job.payload.n)) ?? 0) + 1);
        // Longer than the lease: only renewal keeps the second worker from taking the job.
        await sleep(job.payload.n % 5 === 0 ? 700 : 60);
        running -= 1;
      };
      const handlers = new Map([['test.slow', handler]]);
      const options = { engine, concurrency: 4, leaseMs: 300, pollMs: 20 } as const;
      const workers = [new JobWorker(db, handlers, options), new JobWorker(db, handlers, options)];
      try {
        await enqueueMany(db, Array.from({ length: 30 }, (_, n) => ({ kind: 'test.slow', payload: { n } })));
        for (const worker of workers) worker.start();
        await waitFor('jobs done', async () => (await db.selectFrom('jobs').select('id').where('kind', '=', 'test.slow').execute()).length, (left) => left === 0, 20_000);
        expect(most).toBeLessThanOrEqual(8);
        expect(most).toBeGreaterThanOrEqual(4);
        expect([...runs.values()].every((n) => n === 1)).toBe(true);
        expect(runs.size).toBe(30);
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        await database.drop();
      }
    });

    it('claims at once after a quiet spell, and under load claims the jobs enqueued within its claim interval together', async () => {
      const database = await createTestDatabase(engine);
      const db = database.handle.db;
      const started = new Map<string, number>();
      const handler = async (job: Job<{ name: string }>) => void started.set(job.payload.name, Date.now());
      const worker = new JobWorker(db, new Map([['test.spaced', handler]]), { engine, claimIntervalMs: 1_000, pollMs: 60_000 });
      const enqueueAndPoke = async (name: string) => {
        await enqueue(db, 'test.spaced', { name });
        worker.poke();
      };
      try {
        worker.start();
        await sleep(1_200); // the claim at start, then a quiet spell longer than the interval
        const firstAt = Date.now();
        await enqueueAndPoke('first');
        for (const name of ['second', 'third', 'fourth']) {
          await sleep(30);
          await enqueueAndPoke(name);
        }
        await waitFor('all four started', async () => started.size, (n) => n === 4, 10_000);
        // The first poke claimed at once; the pokes within the interval waited for one claim together.
        expect(started.get('first')! - firstAt).toBeLessThan(500);
        const rest = ['second', 'third', 'fourth'].map((name) => started.get(name)!);
        expect(Math.max(...rest) - Math.min(...rest)).toBeLessThan(300);
        expect(Math.min(...rest) - started.get('first')!).toBeGreaterThanOrEqual(800);
      } finally {
        await worker.stop();
        await database.drop();
      }
    });

    it('logs a move a state table refuses once and drops its job, instead of retrying it', async () => {
      const database = await createTestDatabase(engine);
      const db = database.handle.db;
      let runs = 0;
      const refusals: unknown[] = [];
      // As a payout job would meet a payout already settled (REJECTED can never become PAID).
      const handler = async () => {
        runs += 1;
        assertMove(PAYOUT_STATES, 'REJECTED', 'PAID');
      };
      const worker = new JobWorker(db, new Map([['test.refused', handler]]), { engine, pollMs: 20, onError: (error) => refusals.push(error) });
      try {
        await enqueue(db, 'test.refused', {});
        worker.start();
        await waitFor('job dropped', async () => (await db.selectFrom('jobs').select('id').where('kind', '=', 'test.refused').execute()).length, (left) => left === 0);
        await sleep(200);
        expect(runs).toBe(1);
        expect(refusals).toEqual([expect.any(IllegalMoveError)]);
      } finally {
        await worker.stop();
        await database.drop();
      }
    });

    it('keeps one worker within its bound, and a stop releases the claims of jobs still running at its timeout', async () => {
      const database = await createTestDatabase(engine);
      const db = database.handle.db;
      let running = 0;
      let most = 0;
      const handler = async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(150);
        running -= 1;
        throw new RetryLater('not yet', 60_000, 'NOT_SENT');
      };
      const worker = new JobWorker(db, new Map([['test.bounded', handler]]), { engine, concurrency: 3, leaseMs: 10_000, pollMs: 20, stopTimeoutMs: 0 });
      try {
        await enqueueMany(db, Array.from({ length: 12 }, (_, n) => ({ kind: 'test.bounded', payload: { n } })));
        worker.start();
        await sleep(100);
        expect(worker.inFlight).toBe(3);
        await worker.stop();
        // Stopped at once: the three in flight were released, not left leased for 10 s.
        const leased = await db.selectFrom('jobs').select('id').where('kind', '=', 'test.bounded').where('locked_by', 'is not', null).execute();
        expect(leased).toHaveLength(0);
        expect(most).toBe(3);
        await sleep(300); // the released jobs' handlers end before the database goes
      } finally {
        await worker.stop();
        await database.drop();
      }
    });
  });
}
