/**
 * `GET /transactionDetails/<payment_token>` throughput and p99 against pgbench's built-in select-only
 * script (`-S`: one primary-key read per transaction) at the same client count, in the same run, on the
 * same PostgreSQL; then the same load on PGlite. Targets (issue 35): kept answers ≥ 1.0× pgbench `-S`, first
 * reads ≥ 0.3× (BENCH_FIRST_READS payments, 20,000 by default, sent and settled unread, then each read once).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/transaction-details.ts
 *   (BENCH_CONNECTIONS=16 BENCH_SECONDS=10 BENCH_ROUNDS=3 BENCH_PAYMENTS=200 by default; BENCH_PGLITE=off skips PGlite)
 *
 * Before the load, the benchmark stores BENCH_PAYMENTS card payments of one merchant through the API
 * (approved, declined, in USD, partially captured and partly refunded, in turn) and waits until each
 * has its final status, so the answers carry fees, history lines and refunds. Each connection then
 * reads those payments in turn. Each round runs pgbench and then Colibri on a fresh database, back to
 * back, so both meet the same machine load; the table gives medians over the rounds, and each ratio is
 * the median of the rounds' ratios. PGlite's ratio is against the median pgbench.
 * Each run also prints CPU per request over the load: the service's process, PostgreSQL's backends
 * serving it, and the load generator (this process), which share the machine's cores.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { Targets } from './targets';
import { createBenchDatabase, trackBackendCpu, median, pgbench, printTable, processCpuSeconds, startColibri, type Figure } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const paymentCount = Number(process.env.BENCH_PAYMENTS ?? 200);
/** Payments read once each for the first-read figure (PostgreSQL only). */
const firstReadsAsked = Number(process.env.BENCH_FIRST_READS ?? 20_000);
/** A multiple of the connections, so each of autocannon's connections reads as many (its `amount` is shared evenly). */
const firstReads = Math.max(connections, Math.round(firstReadsAsked / connections) * connections);
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type Json = Record<string, unknown>;

async function call(url: string, init: { method?: string; body?: unknown; token?: string; admin?: string } = {}): Promise<Json> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers['x-auth-token'] = init.token;
  if (init.admin) headers.authorization = `Bearer ${init.admin}`;
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const body = (await response.json()) as Json;
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** Stores `paymentCount` payments of one merchant in four shapes and waits for their final statuses. */
async function seedPayments(base: string, adminToken: string): Promise<{ token: string; paymentTokens: string[]; sendApproved: (reference: string) => Promise<string> }> {
  const merchant = await call(`${base}/admin/merchants`, { method: 'POST', admin: adminToken, body: { name: 'Bench details' } });
  const { token } = (await call(`${base}/auth`, { method: 'POST', body: { apiKey: merchant.api_key, apiSecret: merchant.api_secret } })) as { token: string };
  const person = await call(`${base}/checkout/person`, { method: 'POST', token, body: { name: 'Bench Buyer', email: 'b@example.com', tax_id: '52998224725', tax_id_type: 'CPF' } });
  const card = async (number: string) =>
    (await call(`${base}/checkout/card`, { method: 'POST', token, body: { public_person_id: person.public_person_id, number, exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'BENCH' } }))
      .public_card_id;
  const approved = await card('4111111111111111');
  const declined = await card('4000000000000002');
  const shapes = [
    { card: approved, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } },
    { card: declined, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } },
    { card: approved, payment: { amount: '25.00', method: 'CREDITCARD', asset: 'USD', installments: 3 } },
    { card: approved, payment: { amount: '40.00', method: 'CREDITCARD', asset: 'BRL', installments: 1, delay_capture: true } },
  ];
  const paymentTokens: string[] = [];
  for (let n = 0; n < paymentCount; n++) {
    const shape = shapes[n % shapes.length] as (typeof shapes)[number];
    const sent = await call(`${base}/checkout/sendPayment`, {
      method: 'POST',
      token,
      body: { contract_id: merchant.contract_id, reference_id: `bench-${n}`, public_person_id: person.public_person_id, public_card_id: shape.card, payment: shape.payment },
    });
    paymentTokens.push(String(sent.payment_token));
  }
  const settle = async (tokens: string[], done: (status: string) => boolean) => {
    for (const paymentToken of tokens) {
      for (let tries = 0; ; tries++) {
        const details = await call(`${base}/transactionDetails/${paymentToken}`, { token });
        const status = String((details.general_info as Json).transaction_status);
        if (done(status)) break;
        if (tries > 600) throw new Error(`payment ${paymentToken} stayed ${status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  await settle(paymentTokens, (status) => status !== 'PROCESSING');
  // The pre-authorised ones are captured in part and then refunded in part.
  const preAuthorized = paymentTokens.filter((_, n) => n % shapes.length === 3);
  for (const paymentToken of preAuthorized) await call(`${base}/checkout/${paymentToken}/capture`, { method: 'POST', token, body: { amount: 30 } });
  await settle(preAuthorized, (status) => status === 'PAID');
  for (const paymentToken of preAuthorized) {
    await call(`${base}/refund`, { method: 'POST', token, body: { payment_token: paymentToken, amount: 5 } });
  }
  const sendApproved = async (reference: string) =>
    String(
      (await call(`${base}/checkout/sendPayment`, { method: 'POST', token, body: { contract_id: merchant.contract_id, reference_id: reference, public_person_id: person.public_person_id, public_card_id: approved, payment: shapes[0]!.payment } }))
        .payment_token,
    );
  return { token, paymentTokens, sendApproved };
}

/**
 * First reads: `firstReads` payments sent and settled but never read, then each read once by `connections`
 * concurrent clients, so every answer is built (no kept text can serve it). Answers reads per second,
 * the seconds they took and CPU per read.
 */
async function measureFirstReads(
  base: string,
  token: string,
  client: pg.Client,
  sendApproved: (reference: string) => Promise<string>,
  servicePid: number,
): Promise<{ perSecond: number; seconds: number; cpu: RequestCpu }> {
  const tokens: string[] = [];
  const sender = async (worker: number) => {
    for (let n = worker; n < firstReads; n += connections) tokens.push(await sendApproved(`first-${n}`));
  };
  await Promise.all(Array.from({ length: connections }, (_, worker) => sender(worker)));
  for (;;) {
    const open = await client.query<{ n: string }>(`select count(*) as n from payments where status in ('CREATED', 'PROCESSING')`);
    if (open.rows[0]?.n === '0') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // The same load generator as the kept answers (autocannon, `connections` connections): each request
  // takes the next payment, so every payment is read exactly once (the count is a multiple of the
  // connections, which autocannon shares `amount` between).
  let next = 0;
  const counter = await cpuCounter(servicePid, client);
  const started = performance.now();
  let lastAnswer = started;
  const result = await autocannon({
    url: base,
    connections,
    amount: tokens.length,
    headers: { 'x-auth-token': token },
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/transactionDetails/${tokens[next++] as string}` }),
        onResponse: () => void (lastAnswer = performance.now()),
      },
    ],
  });
  // autocannon notices that `amount` is reached only at its next one-second tick: the reads end at the last answer.
  const seconds = (lastAnswer - started) / 1000;
  const perSecond = tokens.length / seconds;
  const cpu = await counter.perRequest(tokens.length);
  if (result.non2xx !== 0 || result.errors !== 0 || next !== tokens.length || result.requests.total !== tokens.length) {
    throw new Error(`first reads: ${result.requests.total} answered of ${tokens.length} (${next} sent), ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { perSecond, seconds, cpu };
}

/** CPU per request in µs: the service's process, PostgreSQL's backends serving it, and this process (the load generator). */
interface RequestCpu {
  service: number;
  postgres: number;
  generator: number;
}

/**
 * Starts counting CPU from /proc: the service's process, PostgreSQL's backends (those the service's pool
 * opens or replaces meanwhile count too) and this process; `perRequest` stops and divides by the requests.
 */
async function cpuCounter(servicePid: number, client: pg.Client | undefined) {
  const before = { service: processCpuSeconds([servicePid]), generator: processCpuSeconds([process.pid]) };
  const postgres = client ? await trackBackendCpu(client) : undefined;
  return {
    async perRequest(requests: number): Promise<RequestCpu> {
      const perRequestUs = (cpuSeconds: number) => (cpuSeconds * 1e6) / Math.max(1, requests);
      return {
        service: perRequestUs(processCpuSeconds([servicePid]) - before.service),
        postgres: perRequestUs((await postgres?.stop()) ?? 0),
        generator: perRequestUs(processCpuSeconds([process.pid]) - before.generator),
      };
    },
  };
}

function describeCpu(cpu: RequestCpu, engine: 'postgres' | 'pglite'): string {
  return `service ${cpu.service.toFixed(0)} µs, PostgreSQL ${engine === 'postgres' ? `${cpu.postgres.toFixed(0)} µs` : '(in the service)'}, load generator ${cpu.generator.toFixed(0)} µs`;
}

async function measureDetails(engine: 'postgres' | 'pglite'): Promise<Figure & { firstReadsPerSecond?: number | undefined }> {
  const database = engine === 'postgres' ? await createBenchDatabase(pgUrl) : undefined;
  const env = { COLIBRI_SANDBOX_DELAY_MS: '0', COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-bench-')), ...(database ? { DATABASE_URL: database.url } : {}) };
  const service = await startColibri(18_202, env);
  try {
    const { token, paymentTokens, sendApproved } = await seedPayments(service.url, service.adminToken);
    // CPU per request, counted over the load alone: the service's process, PostgreSQL's backends serving
    // it, and this process (the load generator), each from /proc.
    const client = database ? new pg.Client({ connectionString: database.url }) : undefined;
    await client?.connect();
    const kept = await cpuCounter(service.child.pid as number, client);
    const result = await autocannon({
      url: service.url,
      connections,
      duration: seconds,
      headers: { 'x-auth-token': token },
      requests: paymentTokens.map((paymentToken) => ({ method: 'GET' as const, path: `/transactionDetails/${paymentToken}` })),
    });
    const cpu = await kept.perRequest(result.requests.total);
    console.log(`${engine}: CPU per request: ${describeCpu(cpu, engine)}`);
    const first = client ? await measureFirstReads(service.url, token, client, sendApproved, service.child.pid as number) : undefined;
    if (first) console.log(`${engine}: first reads ${first.perSecond.toFixed(0)}/s (${firstReads} in ${first.seconds.toFixed(3)} s), CPU per first read: ${describeCpu(first.cpu, engine)}`);
    const firstReadsPerSecond = first?.perSecond;
    await client?.end();
    return { name: `${engine}: GET /transactionDetails (${paymentTokens.length} payments in turn)`, requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx, firstReadsPerSecond };
  } finally {
    await service.stop();
    await database?.drop();
  }
}

console.log(`connections=${connections} duration=${seconds}s rounds=${rounds} payments=${paymentCount} node=${process.version}\n`);
const measured: { pgbench: Awaited<ReturnType<typeof pgbench>>; colibri: Awaited<ReturnType<typeof measureDetails>> }[] = [];
for (let round = 1; round <= rounds; round++) {
  const baseline = await pgbench(pgUrl, { selectOnly: true, connections, seconds });
  const colibri = await measureDetails('postgres');
  measured.push({ pgbench: baseline, colibri });
  console.log(
    `round ${round}: pgbench -S ${baseline.requestsPerSecond.toFixed(0)} tps; details ${colibri.requestsPerSecond.toFixed(0)}/s ` +
      `(${(colibri.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}x), p99 ${colibri.p99Ms} ms, non-2xx ${colibri.non2xx}`,
  );
}
// BENCH_PGLITE=off leaves the PGlite run out (when profiling PostgreSQL's figures).
const onPglite = process.env.BENCH_PGLITE === 'off' ? undefined : await measureDetails('pglite');

const middle = (pick: (r: (typeof measured)[number]) => number) => median(measured.map(pick));
const pgbenchTps = middle((r) => r.pgbench.requestsPerSecond);
printTable([
  { name: `pgbench select-only (-S -c ${connections})`, requestsPerSecond: pgbenchTps, p99Ms: Number.NaN, non2xx: 0 },
  {
    name: measured[0]?.colibri.name ?? 'postgres: GET /transactionDetails',
    requestsPerSecond: middle((r) => r.colibri.requestsPerSecond),
    p99Ms: middle((r) => r.colibri.p99Ms),
    non2xx: measured.reduce((sum, r) => sum + r.colibri.non2xx, 0),
    ratio: middle((r) => r.colibri.requestsPerSecond / r.pgbench.requestsPerSecond),
  },
  ...(onPglite ? [{ ...onPglite, ratio: onPglite.requestsPerSecond / pgbenchTps }] : []),
]);
console.log(`\n(medians over ${rounds} rounds; pgbench prints no p99, its median average latency was ${middle((r) => r.pgbench.latencyAverageMs)} ms; PGlite's ratio is against the median pgbench)`);

const targets = new Targets('issue 35, PostgreSQL, against pgbench -S of the same round');
targets.atLeast('kept answers / pgbench -S', middle((r) => r.colibri.requestsPerSecond / r.pgbench.requestsPerSecond), 1.0, 'x');
targets.atLeast('first reads / pgbench -S', middle((r) => (r.colibri.firstReadsPerSecond ?? Number.NaN) / r.pgbench.requestsPerSecond), 0.3, 'x');
targets.print();
