import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { createTestDatabase, type TestDatabase } from './harness';
import { postFrom, spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

/**
 * Scale-out as docs/operations.md describes it: two API processes (COLIBRI_WORKERS=off) and two
 * `colibri worker` processes on one PostgreSQL, behind HAProxy (Debian's package; .ci/run installs it).
 * Clients send card payments through the load balancer with an Idempotency-Key and retry what fails;
 * one API process and one worker are killed with SIGKILL under that load. Every payment must exist
 * exactly once, settle, and have its callback delivered. Before the load, the limits are checked to be
 * shared: failed sign-ins and card attempts from one address, spread over both API processes, are
 * refused at the configured limit, not at twice it.
 */

const scaleOut = process.env.TEST_DATABASE_URL ? it : it.skip;
if (process.env.CI && !process.env.TEST_DATABASE_URL) {
  it('scale-out behind a load balancer (needs TEST_DATABASE_URL, which CI sets)', () => {
    throw new Error('TEST_DATABASE_URL is not set: the scale-out test cannot run');
  });
}

const children: Child[] = [];
let haproxy: ChildProcess | undefined;
let database: TestDatabase | undefined;
let receiver: CallbackReceiver | undefined;
afterAll(async () => {
  haproxy?.kill('SIGTERM');
  await stopChildren(children, 2_000);
  await receiver?.close();
  await database?.drop();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** HAProxy in front of the API processes: round robin, health checks on /readyz, failed connections redispatched. */
function startHaproxy(port: number, backends: readonly number[]): ChildProcess {
  const config = [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 2',
    '  option redispatch',
    '  retry-on conn-failure empty-response',
    `frontend api`,
    `  bind 127.0.0.1:${port}`,
    '  default_backend colibri',
    'backend colibri',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  option forwardfor',
    ...backends.map((p, i) => `  server api${i} 127.0.0.1:${p} check inter 500ms fall 2 rise 2`),
    '',
  ].join('\n');
  const file = join(mkdtempSync(join(tmpdir(), 'colibri-haproxy-')), 'haproxy.cfg');
  writeFileSync(file, config);
  const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
  if (check.error) throw new Error('haproxy is not installed (apt-get install haproxy; .ci/run does it)');
  if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}`);
  return spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'inherit'] });
}

const SIGN_IN_LIMIT = 6;
const CARD_LIMIT = 4;

/**
 * The limits count in PostgreSQL, so each holds across processes. Requests go straight to each API
 * process in turn from one address (an address of their own, not the load balancer's, which the
 * processes do not take as a proxy's), then through HAProxy, whose X-Forwarded-For names the client.
 */
async function checkSharedLimits(apiPorts: readonly number[], balancer: string, headers: Record<string, string>, contractId: string): Promise<void> {
  const api = (i: number) => `http://127.0.0.1:${apiPorts[i % apiPorts.length]}`;
  const refusedAt = async (send: (i: number) => Promise<number>): Promise<number[]> => {
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMIT + 2; i += 1) statuses.push(await send(i));
    return statuses;
  };
  const failures = [...Array<number>(SIGN_IN_LIMIT).fill(401), 429, 429];
  // Sign-in failures from one address, whatever the key, alternating between the processes and
  // between POST /auth and the dashboard's sign-in, which count together.
  const direct = await refusedAt(async (i) => (await postFrom(api(i), i % 4 < 2 ? '/auth' : '/dashboard/api/session', { apiKey: `ck_guess_${i}`, apiSecret: 'x' }, '127.0.80.1')).status);
  expect(direct).toEqual(failures);
  // Through the load balancer (round robin over both processes), the client's own address counts.
  const balanced = await refusedAt(async (i) => (await postFrom(balancer, '/auth', { apiKey: `ck_guess_${i}`, apiSecret: 'x' }, '127.0.80.2')).status);
  expect(balanced).toEqual(failures);

  // Card attempts on the hosted page: the limit's worth alternating between the processes, then refused by both.
  const generated = await fetch(`${balancer}/checkout/generate`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ contractId, amount: '10.00', asset: 'BRL', referenceId: 'limits', method: 'CREDITCARD' }),
  });
  const checkout = (await generated.json()) as { checkout_id: string };
  expect(generated.status, JSON.stringify(checkout)).toBe(200);
  const cards: number[] = [];
  for (let i = 0; i < CARD_LIMIT + 2; i += 1) cards.push((await postFrom(api(i), `/pay/${checkout.checkout_id}/card`, { number: 'x' }, '127.0.80.3')).status);
  expect(cards).toEqual([...Array<number>(CARD_LIMIT).fill(400), 429, 429]);
}

scaleOut(
  '[postgres] two API processes and two workers behind HAProxy lose and duplicate no payment when one of each is killed',
  async () => {
    database = await createTestDatabase('postgres');
    receiver = await startReceiver();
    const adminToken = `adm_${randomBytes(16).toString('hex')}`;
    const env = {
      DATABASE_URL: database.url ?? '',
      COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-scale-')),
      COLIBRI_ADMIN_TOKEN: adminToken,
      COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
      COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      COLIBRI_CALLBACK_RETRY_BASE_MS: '200',
      COLIBRI_SANDBOX_DELAY_MS: '50',
      COLIBRI_TRUST_PROXY: '127.0.0.1',
      COLIBRI_AUTH_FAILURES_PER_ADDRESS: String(SIGN_IN_LIMIT),
      COLIBRI_PAY_CARD_LIMIT_PER_ADDRESS: String(CARD_LIMIT),
    };
    const apiPorts = [await freePort(), await freePort()];
    const apis = apiPorts.map((port) => spawnColibri('serve', { ...env, PORT: String(port), COLIBRI_WORKERS: 'off' }));
    children.push(...apis);
    await waitForOutput(apis[0]!, 'is running at', 120_000);
    // The second API starts after the first has migrated and made the demo merchant.
    await waitForOutput(apis[1]!, 'is running at', 120_000);
    const workers = [spawnColibri('worker', env), spawnColibri('worker', env)];
    children.push(...workers);
    await Promise.all(workers.map((w) => waitForOutput(w, 'worker running', 120_000)));
    const lbPort = await freePort();
    haproxy = startHaproxy(lbPort, apiPorts);
    const base = `http://127.0.0.1:${lbPort}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 100) throw new Error('HAProxy did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }

    const post = async (path: string, body: unknown, headers: Record<string, string>) => {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, body: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, any> };
    };
    const merchant = (await post('/admin/merchants', { name: 'Scaled' }, { authorization: `Bearer ${adminToken}` })).body;
    const auth = (await (await fetch(`${base}/auth`, { method: 'POST', body: new URLSearchParams({ apiKey: merchant.api_key, apiSecret: merchant.api_secret }) })).json()) as {
      token: string;
    };
    const headers = { 'x-auth-token': auth.token };
    await checkSharedLimits(apiPorts, base, headers, merchant.contract_id);
    const person = await post('/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, headers);
    const card = await post(
      '/checkout/card',
      { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' },
      headers,
    );
    expect(card.status, JSON.stringify(card.body)).toBe(200);

    /**
     * Sends one payment until the service answers it, retrying with the same Idempotency-Key as a careful
     * client does. A key whose first request died with its process is taken over by a retry once its
     * claim lapses (COLIBRI_IDEMPOTENCY_LEASE_MS, http/idempotency.ts). Should that ever fail, every retry
     * would answer 409: past 15 s of those the client sends the payment under a new key, which the test
     * then reports (and a payment stored under the first key would show as a duplicate).
     */
    const rekeyed: string[] = [];
    const pay = async (reference: string): Promise<string> => {
      let key = `key-${reference}`;
      let conflictSince: number | undefined;
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        let status = 0;
        try {
          const response = await post(
            '/checkout/sendPayment',
            {
              contract_id: merchant.contract_id,
              reference_id: reference,
              notification_url: `${receiver!.url}/scale`,
              public_person_id: person.body.public_person_id,
              public_card_id: card.body.public_card_id,
              payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
            },
            { ...headers, 'idempotency-key': key },
          );
          status = response.status;
          if (status === 200) return response.body.payment_token as string;
          // 5xx from the balancer while a process dies, 409 while the first attempt with the key is in flight.
          if (status < 500 && status !== 409) throw new Error(`${reference}: ${status} ${JSON.stringify(response.body)}`);
        } catch (error) {
          if (String(error).includes(`${reference}:`)) throw error;
        }
        if (status === 409) {
          conflictSince ??= Date.now();
          if (Date.now() - conflictSince > 15_000 && !key.endsWith('-again')) {
            key = `${key}-again`;
            rekeyed.push(reference);
          }
        } else conflictSince = undefined;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${reference}: never answered`);
    };

    const total = 240;
    let next = 0;
    const tokens = new Map<string, string>();
    const client = async () => {
      while (next < total) {
        const reference = `scale-${next++}`;
        tokens.set(reference, await pay(reference));
      }
    };
    const load = Promise.all(Array.from({ length: 12 }, client));
    while (next < total / 3) await new Promise((r) => setTimeout(r, 20));
    apis[0]!.process.kill('SIGKILL');
    workers[0]!.process.kill('SIGKILL');
    await load;

    const db = database.handle.db;
    // The load's payments only: the limits check's checkout opened one of its own at generation.
    const rows = await db
      .selectFrom('payments')
      .select(['payment_token', 'reference_id', 'status'])
      .where('merchant_id', '=', merchant.merchant_id)
      .where('reference_id', 'like', 'scale-%')
      .execute();
    // Exactly one payment per reference, and it is the one its client was told about.
    expect(rows).toHaveLength(total);
    // Keys left in progress by the killed process were all taken over.
    expect(rekeyed).toEqual([]);
    for (const row of rows) expect(tokens.get(row.reference_id), row.reference_id).toBe(row.payment_token);

    // Every payment settles, through the surviving worker (the killed one's claims expire).
    const deadline = Date.now() + 120_000;
    for (;;) {
      const open = await db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchant.merchant_id).where('reference_id', 'like', 'scale-%').where('status', 'in', ['CREATED', 'PROCESSING']).execute();
      if (open.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${open.length} payments never settled`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const paid = await db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchant.merchant_id).where('reference_id', 'like', 'scale-%').where('status', '=', 'PAID').execute();
    expect(paid).toHaveLength(total);

    // Each payment's callbacks reach the merchant, each event at least once.
    const events = await db.selectFrom('webhook_deliveries').select(['event_id']).where('merchant_id', '=', merchant.merchant_id).execute();
    expect(events.length).toBeGreaterThanOrEqual(total);
    await receiver.waitFor(
      () => {
        const delivered = new Set(receiver!.at('/scale').filter((c) => c.status >= 200 && c.status < 300).map((c) => c.id));
        return events.every((e) => delivered.has(e.event_id));
      },
      120_000,
      'every callback delivered',
    );
    const settled = new Set<string>();
    for (const c of receiver.at('/scale')) {
      const body = JSON.parse(c.body) as Record<string, unknown>;
      const token = JSON.stringify(body).match(/"payment_token":"([^"]+)"/)?.[1];
      if (token) settled.add(token);
    }
    for (const token of tokens.values()) expect(settled.has(token), token).toBe(true);
  },
  600_000,
);
