/**
 * The loss of the database primary under payment load, with figures: a two-node Patroni cluster of
 * deploy/ha/up.sh (etcd, PostgreSQL 15, HAProxy; needs `apt-get install patroni etcd-server haproxy`),
 * one `colibri serve` and one `colibri worker` on HAProxy's write port, clients sending card payments with
 * an Idempotency-Key each and retrying them (same key) until answered 200. After BENCH_BEFORE seconds the
 * primary's Patroni and postmaster are killed together (kill -9); the load goes on BENCH_AFTER seconds
 * past the first payment acknowledged after the kill; then the old primary is started again and rejoins.
 *
 *   npx tsx bench/failover.ts
 *
 * Settings: BENCH_CONNECTIONS (8 clients), BENCH_BEFORE (10 s), BENCH_AFTER (10 s), BENCH_ROUNDS (1: each
 * further round fails back to the rejoined node), BENCH_DIR (a new folder under the system's temporary one).
 *
 * Figures, per round:
 * - time to first write: from the kill to the first payment answered 200 whose request was sent after it;
 * - lost: payments answered 200 and absent from the new primary (must be 0); doubled: references stored twice;
 * - payments/s before the kill, during the outage (kill to first write) and after;
 * - 503 answers, and the rejoin: how long up.sh took to bring the old primary back as a synchronous standby.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startCluster } from '../packages/server/test/ha-cluster';
import { startColibri, startWorker } from './lib';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
const beforeS = Number(process.env.BENCH_BEFORE ?? 10);
const afterS = Number(process.env.BENCH_AFTER ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const dir = process.env.BENCH_DIR ?? join(tmpdir(), `colibri-ha-bench-${process.pid}`);

interface Ack {
  reference: string;
  token: string;
  /** When the attempt that was answered 200 was sent, and when the answer came. */
  sentAt: number;
  at: number;
}

async function json(base: string, method: string, path: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, string | undefined> };
}

async function main(): Promise<void> {
  const cluster = await startCluster(dir, 2);
  const stops: (() => Promise<void>)[] = [];
  try {
    const env = { DATABASE_URL: cluster.url, COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'), COLIBRI_SANDBOX_DELAY_MS: '20' };
    const service = await startColibri(18_350, env);
    stops.push(service.stop);
    const worker = await startWorker(env);
    stops.push(worker.stop);
    const base = service.url;
    const merchant = (await json(base, 'POST', '/admin/merchants', { name: 'Failover bench' }, { authorization: `Bearer ${service.adminToken}` })).body;
    const token = (await json(base, 'POST', '/auth', { apiKey: merchant.api_key, apiSecret: merchant.api_secret }, {})).body.token as string;
    const headers = { 'x-auth-token': token };
    const person = (await json(base, 'POST', '/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, headers)).body;
    const card = (
      await json(
        base,
        'POST',
        '/checkout/card',
        { public_person_id: person.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' },
        headers,
      )
    ).body;

    for (let round = 1; round <= rounds; round += 1) {
      const acks: Ack[] = [];
      let refusals = 0;
      let stopping = false;
      let sequence = 0;
      const pay = async (reference: string) => {
        const body = {
          contract_id: merchant.contract_id,
          reference_id: reference,
          public_person_id: person.public_person_id,
          public_card_id: card.public_card_id,
          payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 },
        };
        for (;;) {
          const sentAt = Date.now();
          try {
            const answer = await json(base, 'POST', '/checkout/sendPayment', body, { ...headers, 'idempotency-key': reference });
            if (answer.status === 200) return acks.push({ reference, token: answer.body.payment_token ?? '', sentAt, at: Date.now() });
            if (answer.status !== 409) refusals += 1;
          } catch {
            refusals += 1;
          }
          await sleep(200);
        }
      };
      const clients = Array.from({ length: connections }, async () => {
        while (!stopping) await pay(`r${round}-${sequence++}`);
      });
      const started = Date.now();
      await sleep(beforeS * 1000);
      const primary = await cluster.leader();
      const pids = cluster.pids(primary);
      const killedAt = Date.now();
      process.kill(pids.patroni!, 'SIGKILL');
      process.kill(pids.postmaster!, 'SIGKILL');
      let firstWrite: Ack | undefined;
      while (!(firstWrite = acks.find((a) => a.sentAt > killedAt))) await sleep(20);
      await sleep(afterS * 1000);
      stopping = true;
      await Promise.all(clients);
      const ended = Date.now();
      const newPrimary = await cluster.leader();

      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      const stored = await client.query<{ payment_token: string; reference_id: string }>('select payment_token, reference_id from payments where merchant_id = $1 and reference_id like $2', [merchant.merchant_id, `r${round}-%`]);
      await client.end();
      const tokens = new Set(stored.rows.map((r) => r.payment_token));
      const lost = acks.filter((a) => !tokens.has(a.token)).length;
      const doubled = stored.rows.length - new Set(stored.rows.map((r) => r.reference_id)).size;

      const rejoinStarted = Date.now();
      await cluster.up();
      const rejoinMs = Date.now() - rejoinStarted;
      const members = await cluster.members();

      const rate = (from: number, to: number) => (acks.filter((a) => a.at >= from && a.at < to).length / Math.max(0.001, (to - from) / 1000)).toFixed(1);
      console.log(
        JSON.stringify(
          {
            round,
            killed: primary,
            promoted: newPrimary,
            time_to_first_write_ms: firstWrite.at - killedAt,
            acknowledged: acks.length,
            lost,
            doubled,
            refused_or_failed_attempts: refusals,
            payments_per_s: { before: rate(started, killedAt), during: rate(killedAt, firstWrite.at), after: rate(firstWrite.at, ended) },
            rejoin_ms: rejoinMs,
            rejoined_as: members.find((m) => m.name === primary)?.role,
            rewound: cluster.log(primary).includes('pg_rewind exit code=0'),
          },
          null,
          2,
        ),
      );
      if (lost > 0 || doubled > 0) process.exitCode = 1;
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
    await cluster.down();
  }
}

await main();
