import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database';
import { createTestDatabase, type TestDatabase } from './harness';
import { spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

/**
 * The service as an operator runs it: `colibri serve` and `colibri worker` as OS processes, their
 * output streams, the lock on the embedded database's folder and the shutdown on SIGTERM.
 */

const children: Child[] = [];
afterAll(async () => {
  await stopChildren(children, 2_000);
});

function start(command: Parameters<typeof spawnColibri>[0], env: Record<string, string>): Child {
  const child = spawnColibri(command, env);
  children.push(child);
  return child;
}

/** The port a `serve` started with PORT=0 listens on, from its banner. */
function portOf(child: Child): number {
  const match = /is running at http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output.join(''));
  if (!match?.[1]) throw new Error(`no port in: ${child.output.join('')}`);
  return Number(match[1]);
}

it('handles SIGTERM before announcing that it runs, serve and worker alike', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-ready-'));
  const preload = new URL('./fakes/sigterm-when-ready.cjs', import.meta.url).pathname;
  const env = { COLIBRI_DATA_DIR: dataDir, PORT: '0', NODE_OPTIONS: `--require=${preload}` };
  for (const command of ['serve', 'worker'] as const) {
    const child = start(command, env);
    await waitForOutput(child, 'SIGTERM handled when ready', 120_000);
    expect(child.output.join(''), command).toContain('SIGTERM handled when ready: true');
    expect(await stopChildren([child], 30_000), command).toEqual([0]);
  }
}, 300_000);

it('locks the PGlite folder: a second process and `merchant create` refuse, the latter naming the command that works', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-lock-'));
  const env = { COLIBRI_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
  const first = start('serve', env);
  // PGlite's first start compiles it and runs every migration: slow on a busy machine.
  await waitForOutput(first, 'is running at', 120_000);
  const port = portOf(first);

  const second = start('serve', env);
  expect(await second.exited).toBe(1);
  expect(second.output.join('')).toContain(`The embedded database in ${dataDir} is in use by another Colibri process (process ${first.process.pid}`);

  const direct = start(['merchant', 'create', '--name', 'Late Shop'], { ...env, PORT: String(port) });
  expect(await direct.exited).toBe(1);
  const advice = direct.output.join('');
  expect(advice).toContain('in use by another Colibri process');
  expect(advice).toContain(`npx colibri merchant create --name "Late Shop" --url http://127.0.0.1:${port} --admin-token "$(cat ${dataDir}/admin-token)"`);

  // The advised command works.
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const viaApi = start(['merchant', 'create', '--name', 'Late Shop', '--json', '--url', `http://127.0.0.1:${port}`, '--admin-token', adminToken], env);
  expect(await viaApi.exited).toBe(0);
  expect(JSON.parse(viaApi.stdout.join(''))).toMatchObject({ api_key: expect.any(String), api_secret: expect.any(String) });

  // stdout carries JSON lines only; the banner (with the demo merchant's secret) is on stderr.
  const lines = first.stdout.join('').split('\n').filter((l) => l !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(first.stdout.join('')).not.toContain('Demo merchant created');
  expect(first.output.join('')).toContain('Demo merchant created');

  expect(await stopChildren([first])).toEqual([0]);
  expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);

  // With no service holding it, the folder is opened directly; the merchant made through the service is there.
  const offline = start(['merchant', 'create', '--name', 'Offline Shop', '--json'], env);
  expect(await offline.exited).toBe(0);
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  const names = (await handle.db.selectFrom('merchants').select('name').execute()).map((m) => m.name).sort();
  await handle.close();
  expect(names).toEqual(['Demo Merchant', 'Late Shop', 'Offline Shop']);

  // A lock left by a process that died is taken over; the banner of a later start advises --url.
  const dead = start(['--version'], {});
  await dead.exited;
  writeFileSync(join(dataDir, 'pglite.lock'), JSON.stringify({ pid: dead.process.pid, host: (await import('node:os')).hostname(), since: 'earlier' }));
  const again = start('serve', env);
  await waitForOutput(again, 'is running at', 120_000);
  expect(again.output.join('')).toContain(`merchant create --name "My Shop" --url http://127.0.0.1:${portOf(again)} --admin-token "$(cat ${dataDir}/admin-token)"`);
  expect(await stopChildren([again], 30_000), again.output.join('')).toEqual([0]);
}, 400_000);

/** The engine of the shutdown test: PostgreSQL when the suite has one, as in production. */
async function shutdownDatabase(): Promise<{ env: Record<string, string>; open(): Promise<DatabaseHandle>; drop(): Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) {
    const database: TestDatabase = await createTestDatabase('postgres');
    return {
      env: { DATABASE_URL: database.url ?? '' },
      open: async () => database.handle,
      drop: () => database.drop(),
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'colibri-shutdown-'));
  return { env: { COLIBRI_DATA_DIR: dataDir }, open: () => openDatabase({ engine: 'pglite', dataDir }), drop: async () => undefined };
}

it('on SIGTERM under load answers the requests in flight, finishes claimed jobs, releases claims and exits 0', async () => {
  const database = await shutdownDatabase();
  const adminToken = `adm_${randomBytes(16).toString('hex')}`;
  const env = {
    ...database.env,
    PORT: '0',
    COLIBRI_ADMIN_TOKEN: adminToken,
    COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
    // Slow enough that payments are in the processor when the signal comes.
    COLIBRI_SANDBOX_DELAY_MS: '300',
    COLIBRI_SHUTDOWN_TIMEOUT_MS: '20000',
  };
  const service = start('serve', { ...env, LOG_LEVEL: 'info' });
  await waitForOutput(service, 'is running at', 120_000);
  const base = `http://127.0.0.1:${portOf(service)}`;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const merchant = (await post('/admin/merchants', { name: 'Under Load' }, { authorization: `Bearer ${adminToken}` })).body;
  const form = new URLSearchParams({ apiKey: merchant.api_key, apiSecret: merchant.api_secret });
  const auth = (await (await fetch(`${base}/auth`, { method: 'POST', body: form })).json()) as { token: string };
  const headers = { 'x-auth-token': auth.token };
  const person = await post('/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, headers);
  const card = await post(
    '/checkout/card',
    { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' },
    headers,
  );

  const answered = new Map<string, number>();
  const refusedBeforeSending: string[] = [];
  const otherFailures: string[] = [];
  let signalled = false;
  let sequence = 0;
  const loop = async () => {
    for (;;) {
      const reference = `load-${sequence++}`;
      try {
        const response = await post('/checkout/sendPayment', {
          contract_id: merchant.contract_id,
          reference_id: reference,
          public_person_id: person.body.public_person_id,
          public_card_id: card.body.public_card_id,
          payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
        }, headers);
        answered.set(reference, response.status);
        if (response.status === 503) return;
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
        // After the port closes new connections are refused, and a keep-alive connection idle when the
        // signal came is closed, so a request sent on it at that moment is reset. Such requests must not
        // have been processed: the database check below holds the service to it.
        if (signalled && ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(code)) refusedBeforeSending.push(reference);
        else otherFailures.push(`${reference}: ${code}`);
        return;
      }
    }
  };
  const loops = Array.from({ length: 8 }, loop);
  await new Promise((r) => setTimeout(r, 1_500));
  signalled = true;
  service.process.kill('SIGTERM');
  const code = await service.exited;
  await Promise.all(loops);
  expect(code, service.output.join('')).toBe(0);
  expect(otherFailures).toEqual([]);
  expect([...answered.values()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
  const accepted = [...answered].filter(([, s]) => s === 200).map(([r]) => r);
  expect(accepted.length).toBeGreaterThan(8);

  const handle = await database.open();
  try {
    const payments = await handle.db.selectFrom('payments').select(['reference_id', 'status', 'payment_token']).where('merchant_id', '=', merchant.merchant_id).execute();
    // Every accepted payment was stored, and nothing was stored that the client was not told about.
    expect(payments.map((p) => p.reference_id).sort()).toEqual(accepted.sort());
    expect(payments.filter((p) => refusedBeforeSending.includes(p.reference_id))).toEqual([]);
    // Claims were released: no job is left locked by the stopped process.
    const locked = await handle.db.selectFrom('jobs').select(['id', 'kind', 'locked_by']).where('locked_by', 'is not', null).execute();
    expect(locked).toEqual([]);
    // A payment still processing has its job waiting for the next worker.
    const processing = payments.filter((p) => p.status === 'PROCESSING').map((p) => p.payment_token);
    if (processing.length > 0) {
      // A card payment's job carries its operation, keyed by the operation's reference (`<token>:authorize`, …).
      const waiting = await handle.db.selectFrom('jobs').select('unique_key').where('failed_at', 'is', null).execute();
      for (const token of processing) expect(waiting.some((j) => j.unique_key?.startsWith(`${token}:`)), token).toBe(true);
    }
  } finally {
    if (!process.env.TEST_DATABASE_URL) await handle.close();
    await database.drop();
  }
}, 120_000);
