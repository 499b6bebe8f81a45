import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { VALID_CPF } from './fixtures';
import { openDatabase } from '../src/db/database';
import { createTestDatabase, ENGINES, type TestDatabase } from './harness';
import { api, freePort, spawnColibri, waitForOutput, type Child } from './processes';

/**
 * Faults caused for real against `colibri serve` running as its own OS process: every PostgreSQL
 * connection of the service terminated under load, and the process killed with SIGKILL while it answers
 * keyed requests. What is checked is what the service promises (docs/architecture.md, "Faults"):
 * it keeps running and answers again within seconds, no acknowledged payment is missing, none is made
 * twice, and nothing stays PROCESSING.
 */

interface Running {
  readonly base: string;
  readonly env: Record<string, string>;
  service: Child;
  readonly database: TestDatabase | undefined;
  readonly dataDir: string;
}

async function start(engine: 'pglite' | 'postgres', extraEnv: Record<string, string> = {}): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-faults-'));
  const database = engine === 'postgres' ? await createTestDatabase('postgres') : undefined;
  const port = await freePort();
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    COLIBRI_DATA_DIR: dataDir,
    DATABASE_URL: database?.url ?? '',
    COLIBRI_ADMIN_TOKEN: `adm_faults_${randomBytes(8).toString('hex')}`,
    COLIBRI_SANDBOX_DELAY_MS: '20',
    COLIBRI_JOB_LEASE_MS: '2000',
    COLIBRI_IDEMPOTENCY_LEASE_MS: '1000',
    ...extraEnv,
  };
  // The test's own pool holds connections to this database too: it closes them before terminating.
  if (database) await database.handle.close();
  const service = spawnColibri('serve', env);
  await waitForOutput(service, 'is running at', 60_000);
  return { base: `http://127.0.0.1:${port}`, env, service, database, dataDir };
}

async function stop(running: Running): Promise<void> {
  if (running.service.process.exitCode === null) {
    running.service.process.kill('SIGTERM');
    await running.service.exited;
  }
  if (running.database) {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`drop database if exists ${new URL(running.database.url ?? '').pathname.slice(1)} with (force)`);
    await admin.end();
  }
  rmSync(running.dataDir, { recursive: true, force: true });
}

/** A merchant with a token, a person and a card, made through the API. */
async function customer(running: Running) {
  const created = await api(running.base, 'POST', '/admin/merchants', { name: 'Fault Shop' }, { authorization: `Bearer ${running.env.COLIBRI_ADMIN_TOKEN}` });
  expect(created.status, created.text).toBe(201);
  const login = async () => (await api(running.base, 'POST', '/auth', { apiKey: created.body.api_key, apiSecret: created.body.api_secret })).body.token as string;
  const auth = { 'x-auth-token': await login() };
  const person = await api(running.base, 'POST', '/checkout/person', { name: 'Ana Lima', email: 'ana@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' }, auth);
  const card = await api(running.base, 'POST', '/checkout/card', { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA LIMA' }, auth);
  expect(card.status, card.text).toBe(200);
  const body = (reference: string) => ({
    contract_id: created.body.contract_id,
    reference_id: reference,
    public_person_id: person.body.public_person_id,
    public_card_id: card.body.public_card_id,
    payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
  });
  return { merchantId: created.body.merchant_id as string, auth, login, body };
}

/** The merchant's payments by reference, read from PostgreSQL with a connection of the test's own. */
async function paymentsByReference(database: TestDatabase, merchantId: string): Promise<Map<string, { token: string; status: string }[]>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ reference_id: string; payment_token: string; status: string }>('select reference_id, payment_token, status from payments where merchant_id = $1', [merchantId]);
    const byReference = new Map<string, { token: string; status: string }[]>();
    for (const row of rows) byReference.set(row.reference_id, [...(byReference.get(row.reference_id) ?? []), { token: row.payment_token, status: row.status }]);
    return byReference;
  } finally {
    await client.end();
  }
}

/** The number of payments per reference in a PGlite folder that no process holds any more. */
async function pgliteReferences(dataDir: string, merchantId: string): Promise<Map<string, number>> {
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  try {
    const rows = await handle.db.selectFrom('payments').select(['reference_id']).where('merchant_id', '=', merchantId).execute();
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.reference_id, (counts.get(row.reference_id) ?? 0) + 1);
    return counts;
  } finally {
    await handle.close();
  }
}

describe.runIf(ENGINES.includes('postgres'))('database connections terminated under load [postgres]', () => {
  it('keeps answering after every backend is terminated twice, loses no acknowledged payment and leaves none PROCESSING', async () => {
    const running = await start('postgres');
    try {
      const m = await customer(running);
      const dbName = new URL(running.database?.url ?? '').pathname.slice(1);
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      const terminate = async () =>
        (await admin.query<{ n: string }>('select count(pg_terminate_backend(pid))::text as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName])).rows[0]?.n;
      // Terminates the service's backends as soon as it has some: on a loaded machine there can be a
      // moment with none connected (the pool reconnects on demand), and a kill that finds none tests nothing.
      const terminateUnderLoad = async () => {
        for (let tries = 0; tries < 50; tries++) {
          const killed = await terminate();
          if (Number(killed) > 0) return killed;
          await sleep(100);
        }
        return '0';
      };

      const answers: { reference: string; status: number; body: any }[] = [];
      let sent = 0;
      let loadUntil = Number.POSITIVE_INFINITY;
      const loop = async (lane: number) => {
        while (Date.now() < loadUntil) {
          const reference = `load-${lane}-${(sent += 1)}`;
          try {
            const answer = await api(running.base, 'POST', '/checkout/sendPayment', m.body(reference), m.auth);
            answers.push({ reference, status: answer.status, body: answer.body });
          } catch (error) {
            answers.push({ reference, status: 0, body: String(error) });
          }
        }
      };
      const load = Promise.all(Array.from({ length: 8 }, (_, lane) => loop(lane)));
      // The first kill comes once payments are flowing (a fixed wait found none yet on a loaded machine).
      const flowingBy = Date.now() + 15_000;
      while (answers.filter((a) => a.status === 200).length < 20 && Date.now() < flowingBy) await sleep(50);
      await sleep(500);
      const firstKill = await terminateUnderLoad();
      await sleep(2_000);
      const secondKill = await terminateUnderLoad();
      const lastKillAt = Date.now();
      loadUntil = Date.now() + 2_500;
      await load;
      expect(Number(firstKill)).toBeGreaterThan(0);
      expect(Number(secondKill)).toBeGreaterThan(0);

      // The process is alive and answers again within 5 s of the last termination, by itself.
      expect(running.service.process.exitCode).toBeNull();
      let ready = await api(running.base, 'GET', '/readyz');
      while (ready.status !== 200 && Date.now() - lastKillAt < 5_000) {
        await sleep(100);
        ready = await api(running.base, 'GET', '/readyz');
      }
      expect(ready.status).toBe(200);
      expect(Date.now() - lastKillAt).toBeLessThan(5_000);

      // Every answer is a payment or the standard 503 of a lost connection: never a 500, never a drop.
      const refused = answers.filter((a) => a.status !== 200);
      for (const a of refused) {
        expect(a.status, JSON.stringify(a)).toBe(503);
        expect(a.body.errors[0].code).toBe('00.09.0001');
      }
      const accepted = answers.filter((a) => a.status === 200);
      expect(accepted.length).toBeGreaterThan(50);

      // Every acknowledged payment exists, once, and reaches a final status.
      const deadline = Date.now() + 30_000;
      const database = running.database;
      if (!database) throw new Error('no database');
      let stored = await paymentsByReference(database, m.merchantId);
      while ([...stored.values()].some((list) => list.some((p) => p.status === 'PROCESSING')) && Date.now() < deadline) {
        await sleep(250);
        stored = await paymentsByReference(database, m.merchantId);
      }
      for (const a of accepted) {
        expect(stored.get(a.reference)?.map((p) => p.token), a.reference).toEqual([a.body.payment_token]);
      }
      expect([...stored.values()].flat().filter((p) => p.status !== 'PAID')).toEqual([]);
      // A new request after the faults works end to end.
      const after = await api(running.base, 'POST', '/checkout/sendPayment', m.body('after-faults'), m.auth);
      expect(after.status, after.text).toBe(200);
      await admin.end();
    } finally {
      await stop(running);
    }
  }, 90_000);
});

for (const engine of ENGINES) {
  describe(`a crash during keyed requests [${engine}]`, () => {
    it('gives every retry after kill -9 and a restart its original payment, one per key, and settles those in flight', async () => {
      const running = await start(engine, { COLIBRI_SANDBOX_DELAY_MS: '300' });
      try {
        const m = await customer(running);
        const keys = Array.from({ length: 120 }, (_, n) => `crash-${n}-${randomBytes(3).toString('hex')}`);
        const answered = new Map<string, string>();
        // Many keyed requests at once; the process is killed while some are still being handled.
        const inFlight = keys.map(async (key) => {
          try {
            const answer = await api(running.base, 'POST', '/checkout/sendPayment', m.body(key), { ...m.auth, 'idempotency-key': key });
            if (answer.status === 200) answered.set(key, answer.body.payment_token as string);
          } catch {
            // The connection died with the process: the client does not know whether it was charged.
          }
        });
        const killAt = Date.now() + 10_000;
        while (answered.size < 20 && Date.now() < killAt) await sleep(2);
        running.service.process.kill('SIGKILL');
        await running.service.exited;
        await Promise.all(inFlight);
        expect(answered.size).toBeLessThan(keys.length);

        running.service = spawnColibri('serve', running.env);
        await waitForOutput(running.service, 'is running at', 60_000);
        const auth = { 'x-auth-token': await m.login() };
        // Each client retries with its key and body: one answer per key, the same payment it was given.
        const retried = new Map<string, { status: number; token: string; text: string }>();
        await Promise.all(
          keys.map(async (key) => {
            const answer = await api(running.base, 'POST', '/checkout/sendPayment', m.body(key), { ...auth, 'idempotency-key': key });
            retried.set(key, { status: answer.status, token: answer.body?.payment_token as string, text: answer.text });
          }),
        );
        for (const key of keys) {
          const retry = retried.get(key);
          expect(retry?.status, `${key}: ${retry?.text}`).toBe(200);
          if (answered.has(key)) expect(retry?.token, key).toBe(answered.get(key));
        }
        // One payment per key, each reaching its final status within 30 s of the restart.
        const deadline = Date.now() + 30_000;
        const statuses = async () => Promise.all(keys.map(async (key) => (await api(running.base, 'GET', `/transactionDetails/${retried.get(key)?.token}`, undefined, auth)).body.general_info?.transaction_status as string));
        let now = await statuses();
        while (now.some((s) => s !== 'PAID') && Date.now() < deadline) {
          await sleep(250);
          now = await statuses();
        }
        expect(now.filter((s) => s !== 'PAID')).toEqual([]);
        const tokens = new Set([...retried.values()].map((r) => r.token));
        expect(tokens.size).toBe(keys.length);
        if (running.database) {
          const stored = await paymentsByReference(running.database, m.merchantId);
          for (const key of keys) expect(stored.get(key)?.length, key).toBe(1);
        } else {
          running.service.process.kill('SIGTERM');
          await running.service.exited;
          const counts = await pgliteReferences(running.dataDir, m.merchantId);
          for (const key of keys) expect(counts.get(key), key).toBe(1);
        }
      } finally {
        await stop(running);
      }
    }, 180_000);
  });
}
