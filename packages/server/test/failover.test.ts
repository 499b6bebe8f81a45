import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { startLoad, type Acknowledged, type Merchant, type Refused } from './failover-load';
import { missingComponents, startCluster, type HaCluster } from './ha-cluster';
import { api, freePort, spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

/**
 * The loss of the database primary, caused for real (docs/operations.md, "A highly available database"):
 * a two-node PostgreSQL 15 cluster run by Patroni (synchronous mode, pg_rewind, ttl 10) with etcd and
 * HAProxy, started by deploy/ha/up.sh in a folder of its own; one `colibri serve` (which runs jobs too) and
 * one `colibri worker` on HAProxy's write port. Under sendPayment, capture and refund load with callbacks:
 * 1. the primary's Patroni and postmaster are killed together (kill -9): the standby is promoted;
 * 2. the old primary, started again, rejoins as a replica (pg_rewind), and the new primary is lost the
 *    same way: the cluster fails back;
 * 3. the primary's postmaster alone is killed: its Patroni starts it again in place.
 * After each, every acknowledged payment, capture and refund is on the primary with its amounts, once;
 * keyed retries get the first answers; every payment settles and its callbacks arrive; the ledger
 * balances; the service answered again within 30 s of the kill, in the same processes.
 *
 * Skips, naming what is missing, where patroni, etcd, haproxy or PostgreSQL 15's server are not
 * installed, except under CI or with TEST_DATABASE_URL set (the PostgreSQL tests are asked for), where it
 * fails instead: .ci/run installs them.
 */

const missing = missingComponents();
const mustRun = Boolean(process.env.CI || process.env.TEST_DATABASE_URL);
const RECOVERY_MS = 30_000;

if (missing.length > 0) {
  if (mustRun) {
    it('failover of the PostgreSQL primary (needs patroni, etcd and haproxy, which .ci/run installs)', () => {
      throw new Error(`missing for the failover test: ${missing.join(', ')}`);
    });
  } else {
    it.skip(`failover of the PostgreSQL primary: skipped, missing ${missing.join(', ')}`, () => undefined);
  }
} else {
  describe('failover of the PostgreSQL primary', () => {
    let cluster: HaCluster | undefined;
    let receiver: CallbackReceiver;
    const children: Child[] = [];
    let merchant: Merchant;
    let adminToken: string;
    let merchantId: string;
    let credentials: { apiKey: string; apiSecret: string };
    const dataDir = mkdtempSync(join(tmpdir(), 'colibri-failover-'));
    const everything: Acknowledged[] = [];
    let failed: string | undefined;
    const refused: Refused[] = [];

    beforeAll(async () => {
      cluster = await startCluster(join(tmpdir(), `colibri-ha-${process.pid}-${randomBytes(3).toString('hex')}`), 2);
      receiver = await startReceiver();
      adminToken = `adm_${randomBytes(16).toString('hex')}`;
      const env = {
        DATABASE_URL: cluster.url,
        DATABASE_READ_URL: cluster.readUrl,
        COLIBRI_DATA_DIR: dataDir,
        COLIBRI_ADMIN_TOKEN: adminToken,
        COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
        COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
        COLIBRI_CALLBACK_RETRY_BASE_MS: '200',
        COLIBRI_SANDBOX_DELAY_MS: '20',
      };
      const port = await freePort();
      const serve = spawnColibri('serve', { ...env, PORT: String(port) });
      children.push(serve);
      await waitForOutput(serve, 'is running at', 120_000);
      const worker = spawnColibri('worker', env);
      children.push(worker);
      await waitForOutput(worker, 'worker running', 120_000);
      const base = `http://127.0.0.1:${port}`;
      const created = await api(base, 'POST', '/admin/merchants', { name: 'Failover' }, { authorization: `Bearer ${adminToken}` });
      expect(created.status, created.text).toBe(201);
      merchantId = created.body.merchant_id;
      credentials = { apiKey: created.body.api_key, apiSecret: created.body.api_secret };
      const auth = await api(base, 'POST', '/auth', credentials);
      const headers = { 'x-auth-token': auth.body.token as string };
      const person = await api(base, 'POST', '/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, headers);
      const card = await api(
        base,
        'POST',
        '/checkout/card',
        { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' },
        headers,
      );
      expect(card.status, card.text).toBe(200);
      merchant = { base, token: auth.body.token, contractId: created.body.contract_id, personId: person.body.public_person_id, cardId: card.body.public_card_id, notifyUrl: `${receiver.url}/ha` };
    }, 240_000);

    afterAll(async () => {
      await stopChildren(children, 5_000);
      await receiver?.close();
      await cluster?.down();
      rmSync(dataDir, { recursive: true, force: true });
    }, 90_000);

    /** Queries the cluster's primary, through HAProxy's write port, on a connection of its own. */
    async function onPrimary<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: cluster!.url, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        return (await client.query<T>(text, values)).rows;
      } finally {
        await client.end();
      }
    }

    /**
     * Kills what `fault` says on the current primary under load, then checks everything the issue lists.
     * Answers the node that was primary.
     */
    async function loseThePrimary(round: string, fault: 'node' | 'postmaster'): Promise<{ killed: string; recoveredMs: number }> {
      // A token lives 5 minutes: each round signs in again.
      merchant.token = (await api(merchant.base, 'POST', '/auth', credentials)).body.token;
      const killed = await cluster!.leader();
      const processes = children.map((c) => c.process.pid);
      const load = startLoad(merchant, 6, round);
      while (load.flows() < 12) await sleep(50);
      const pids = cluster!.pids(killed);
      const killedAt = Date.now();
      if (fault === 'node') process.kill(pids.patroni!, 'SIGKILL');
      process.kill(pids.postmaster!, 'SIGKILL');
      // The first new payment acknowledged after the kill: a write the service made on the new primary.
      let probe = 0;
      let recoveredMs = 0;
      while (recoveredMs === 0) {
        const sent = Date.now();
        const answered = await load.pay(`${round}-probe-${probe++}`, 'pay', 60_000).catch(() => undefined);
        if (answered && sent >= killedAt) recoveredMs = answered.at - killedAt;
        else if (!answered) throw new Error(`${round}: no payment acknowledged within 60 s of the kill`);
      }
      const flowsAtRecovery = load.flows();
      while (load.flows() < flowsAtRecovery + 12) await sleep(50);
      await load.stop();
      everything.push(...load.acknowledged);
      console.log(`${round}: ${fault} of ${killed} killed; first payment acknowledged ${recoveredMs} ms after; ${load.acknowledged.length} acknowledged, ${load.refused.length} refused (${[...new Set(load.refused.map((r) => `${r.status} ${r.code}`))].join(', ')})`);

      expect(recoveredMs, 'the service answered again within 30 s of the kill').toBeLessThan(RECOVERY_MS);
      // The same processes answered: nothing was restarted.
      expect(children.map((c) => c.process.exitCode)).toEqual([null, null]);
      expect(children.map((c) => c.process.pid)).toEqual(processes);
      // Every request got an answer (the last test checks the refusals' bodies).
      expect(load.unanswered).toEqual([]);
      refused.push(...load.refused);
      await checkBooks(everything);
      return { killed, recoveredMs };
    }

    /** What the issue asks of the acknowledged requests, on the primary. */
    async function checkBooks(acknowledged: Acknowledged[]): Promise<void> {
      const payments = acknowledged.filter((a) => a.kind === 'payment');
      // Every acknowledged payment exists once, with its amount; no payment exists that was not acknowledged.
      const stored = await onPrimary<{ payment_token: string; reference_id: string; original_amount_minor: string; captured_minor: string }>(
        'select payment_token, reference_id, original_amount_minor::text, captured_minor::text from payments where merchant_id = $1',
        [merchantId],
      );
      const byToken = new Map(stored.map((p) => [p.payment_token, p]));
      expect(stored.length, 'payments stored = payments acknowledged').toBe(payments.length);
      expect(new Set(stored.map((p) => p.reference_id)).size, 'one payment per reference').toBe(stored.length);
      for (const p of payments) {
        const row = byToken.get(p.answer.payment_token);
        expect(row, p.reference).toBeDefined();
        expect({ reference: row!.reference_id, amount: row!.original_amount_minor }).toEqual({ reference: p.reference, amount: String(p.amountMinor) });
      }
      // Every acknowledged capture once, with its amount.
      const captures = await onPrimary<{ payment_token: string; amount_minor: string; status: string }>(
        `select payment_token, amount_minor::text, status from payment_operations where merchant_id = $1 and kind = 'capture'`,
        [merchantId],
      );
      const acknowledgedCaptures = acknowledged.filter((a) => a.kind === 'capture');
      expect(captures.length, 'captures stored = captures acknowledged').toBe(acknowledgedCaptures.length);
      for (const c of acknowledgedCaptures) {
        const token = c.path.split('/')[2];
        expect(captures.filter((row) => row.payment_token === token).map((row) => row.amount_minor), c.reference).toEqual([String(c.amountMinor)]);
      }
      // Every acknowledged refund once, with its amount.
      const refunds = await onPrimary<{ refund_id: string; payment_token: string; amount_minor: string }>('select refund_id::text, payment_token, amount_minor::text from refunds where merchant_id = $1', [merchantId]);
      const acknowledgedRefunds = acknowledged.filter((a) => a.kind === 'refund');
      expect(refunds.length, 'refunds stored = refunds acknowledged').toBe(acknowledgedRefunds.length);
      for (const r of acknowledgedRefunds) {
        const row = refunds.find((s) => s.refund_id === String(r.answer.refund_id));
        expect({ payment: row?.payment_token, amount: row?.amount_minor }, r.reference).toEqual({ payment: r.body.payment_token, amount: String(r.amountMinor) });
      }

      // Keyed retries answer as the first time.
      for (const a of acknowledged) {
        const again = await api(merchant.base, 'POST', a.path, a.body, { 'x-auth-token': merchant.token, 'idempotency-key': a.key });
        expect(again.status, `${a.key}: ${again.text}`).toBe(200);
        if (a.kind === 'refund') expect(again.body.refund_id, a.key).toBe(a.answer.refund_id);
        else expect({ token: again.body.payment_token, status: again.body.transaction_status }, a.key).toEqual({ token: a.answer.payment_token, status: a.answer.transaction_status });
      }

      // Every payment and refund reaches its final status.
      const deadline = Date.now() + 90_000;
      for (;;) {
        const open = await onPrimary<{ n: string }>(
          `select (select count(*) from payments where merchant_id = $1 and status in ('CREATED', 'PROCESSING'))
                + (select count(*) from refunds where merchant_id = $1 and status in ('REQUESTED', 'PROCESSING')) as n`,
          [merchantId],
        );
        if (open[0]!.n === '0') break;
        if (Date.now() > deadline) throw new Error(`${open[0]!.n} payments or refunds never settled`);
        await sleep(250);
      }
      const statuses = new Map((await onPrimary<{ payment_token: string; status: string }>('select payment_token, status from payments where merchant_id = $1', [merchantId])).map((r) => [r.payment_token, r.status]));
      for (const p of payments) {
        const wanted = { pay: 'PAID', capture: 'PAID', refund: 'PARTIALLY_REFUNDED' }[p.flow];
        // A refund flow whose payment was acknowledged but whose refund was not yet sent is PAID.
        const refunded = acknowledgedRefunds.some((r) => r.body.payment_token === p.answer.payment_token);
        const captured = acknowledgedCaptures.some((c) => c.path.includes(p.answer.payment_token));
        const expected = p.flow === 'refund' && !refunded ? 'PAID' : p.flow === 'capture' && !captured ? 'PRE_AUTHORIZED' : wanted;
        expect(statuses.get(p.answer.payment_token), p.reference).toBe(expected);
      }
      const failedRefunds = await onPrimary('select refund_id from refunds where merchant_id = $1 and status <> $2', [merchantId, 'COMPLETED']);
      expect(failedRefunds).toEqual([]);

      // Every event's callback is delivered, and every acknowledged payment has had one.
      const events = await onPrimary<{ event_id: string }>('select event_id from webhook_deliveries where merchant_id = $1', [merchantId]);
      await receiver.waitFor(
        () => {
          const delivered = new Set(receiver.at('/ha').filter((c) => c.status >= 200 && c.status < 300).map((c) => c.id));
          return events.every((e) => delivered.has(e.event_id));
        },
        90_000,
        'every callback delivered',
      );
      const told = new Set(receiver.at('/ha').map((c) => /"payment_token":"([^"]+)"/.exec(c.body)?.[1]));
      for (const p of payments) expect(told.has(p.answer.payment_token), `callback of ${p.reference}`).toBe(true);

      // The ledger balances: every journal sums to zero, and the balance is what the ledger owes the merchant.
      expect(await onPrimary('select journal_id from ledger_entries group by journal_id, currency having sum(amount_minor) <> 0')).toEqual([]);
      const owed = await onPrimary<{ owed: string }>(
        `select coalesce(-sum(amount_minor), 0)::text as owed from ledger_entries where merchant_id = $1 and currency = 'BRL' and account in ('merchant_payable', 'reserve_held', 'disputes_held')`,
        [merchantId],
      );
      const balance = await api(merchant.base, 'GET', '/balance', undefined, { 'x-auth-token': merchant.token });
      const brl = (balance.body.balances as { asset: string; available: number; pending: number; reserved: number }[]).find((b) => b.asset === 'BRL');
      const cents = (n: number) => Math.round(n * 100);
      expect(String(cents(brl?.available ?? 0) + cents(brl?.pending ?? 0) + cents(brl?.reserved ?? 0)), 'balance = what the ledger owes').toBe(owed[0]!.owed);
    }

    /** A counter of the API process's metrics (it is the one serving the reads). */
    async function metric(pattern: RegExp): Promise<number> {
      const text = await (await fetch(`${merchant.base}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
      return Number(pattern.exec(text)?.[1] ?? 0);
    }

    /** Each round starts from the cluster the previous one left: after a failure there is nothing to test. */
    async function inTurn(name: string, round: () => Promise<void>): Promise<void> {
      if (failed) throw new Error(`not run: ${failed} failed`);
      failed = name;
      await round();
      failed = undefined;
    }

    /** Starts the killed node again and waits for it to follow the primary (pg_rewind when it had diverged). */
    async function rejoin(node: string): Promise<void> {
      const logBefore = cluster!.log(node).length;
      await cluster!.up();
      const members = await cluster!.members();
      const leader = members.find((m) => m.role === 'leader');
      const back = members.find((m) => m.name === node);
      expect(back?.role, JSON.stringify(members)).toBe('sync_standby');
      expect(back?.state).toBe('running');
      expect(back?.timeline).toBe(leader?.timeline);
      const log = cluster!.log(node).slice(logBefore);
      expect(log).not.toMatch(/removing data directory|pg_rewind exit code=[1-9]/);
      console.log(`${node} rejoined as ${back?.role}, ${log.includes('pg_rewind exit code=0') ? 'rewound by pg_rewind' : 'with nothing to rewind'}`);
    }

    it('loses the primary node (Patroni and postmaster killed): the standby is promoted and nothing acknowledged is lost', () =>
      inTurn('the first failover', async () => {
        const { killed } = await loseThePrimary('first', 'node');
        expect(await cluster!.leader()).not.toBe(killed);
        await rejoin(killed);
      }), 240_000);

    it('loses the new primary the same way: the cluster fails back to the rejoined node', () =>
      inTurn('the failover back', async () => {
        const { killed } = await loseThePrimary('second', 'node');
        expect(await cluster!.leader()).not.toBe(killed);
        await rejoin(killed);
      }), 240_000);

    it('loses the primary postmaster alone: its Patroni starts it again in place', () =>
      inTurn('the postmaster kill', async () => {
        const { killed } = await loseThePrimary('postmaster', 'postmaster');
        expect(await cluster!.leader()).toBe(killed);
      }), 240_000);

    it('loses the replica under report-export load: exports not yet started and the dashboard are served by the primary', () =>
      inTurn('the replica kill', async () => {
        const leader = await cluster!.leader();
        const replica = (await cluster!.members()).find((m) => m.name !== leader)!.name;
        const headers = { 'x-auth-token': (await api(merchant.base, 'POST', '/auth', credentials)).body.token as string };
        const session = await fetch(`${merchant.base}/dashboard/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
        expect(session.status).toBe(200);
        const dashboard = { cookie: (session.headers.get('set-cookie') ?? '').split(';')[0]!, 'x-csrf-token': ((await session.json()) as { csrf_token: string }).csrf_token };
        const report = (await api(merchant.base, 'GET', '/reports/myreports/report?size=1&page=0', undefined, headers)).body.content[0].id as number;
        // Rows to export, whatever ran before; the export of the primary's data is what each must match.
        merchant.token = headers['x-auth-token'];
        const seed = startLoad(merchant, 0, 'exports');
        for (let i = 0; i < 40; i += 1) await seed.pay(`exports-${i}`);
        everything.push(...seed.acknowledged);
        await sleep(1_000);
        const whole = await (await fetch(`${merchant.base}/reports/myreports/report/${report}/export?format=csv`, { headers })).text();
        const lines = whole.split('\n').length;
        expect(lines).toBeGreaterThan(40);
        const replicaReads = async () => metric(/colibri_db_replica_reads_total\{pool="replica"\} (\d+)/);
        const fallbacks = async () => metric(/colibri_db_replica_fallbacks_total\{reason="unavailable"\} (\d+)/);

        const exports: { startedAt: number; ok: boolean; detail: string }[] = [];
        const pages: { startedAt: number; status: number; path: string }[] = [];
        let stopping = false;
        const exporter = async () => {
          while (!stopping) {
            const startedAt = Date.now();
            try {
              const response = await fetch(`${merchant.base}/reports/myreports/report/${report}/export?format=csv`, { headers, signal: AbortSignal.timeout(30_000) });
              const text = await response.text();
              exports.push({ startedAt, ok: response.status === 200 && text.split('\n').length === lines, detail: `${response.status}, ${text.split('\n').length} lines of ${lines}: ${text.slice(-200)}` });
            } catch (error) {
              exports.push({ startedAt, ok: false, detail: String(error) });
            }
          }
        };
        const browser = async () => {
          while (!stopping) {
            for (const path of ['/dashboard/api/overview', '/dashboard/api/payments', '/dashboard/api/events']) {
              const startedAt = Date.now();
              try {
                const response = await fetch(`${merchant.base}${path}`, { headers: dashboard, signal: AbortSignal.timeout(30_000) });
                await response.arrayBuffer();
                pages.push({ startedAt, status: response.status, path });
              } catch {
                pages.push({ startedAt, status: 0, path });
              }
            }
          }
        };
        const load = Promise.all([exporter(), exporter(), browser()]);
        let killedAt = 0;
        let fallbacksBefore: number | undefined;
        try {
          await sleep(2_000);
          expect(await replicaReads(), 'the replica served reads before the kill').toBeGreaterThan(0);
          fallbacksBefore = await fallbacks();
          const pids = cluster!.pids(replica);
          killedAt = Date.now();
          process.kill(pids.patroni!, 'SIGKILL');
          process.kill(pids.postmaster!, 'SIGKILL');
          await sleep(8_000);
        } finally {
          stopping = true;
          await load;
        }
        // The same processes go on serving.
        for (const child of children) expect(child.process.exitCode, child.output.join('').slice(-4_000)).toBeNull();
        const after = exports.filter((e) => e.startedAt > killedAt);
        console.log(`replica ${replica} killed: ${exports.length} exports (${after.length} started after the kill, ${exports.filter((e) => !e.ok).length} failed), ${pages.length} dashboard pages; replica fallbacks ${(await fallbacks()) - (fallbacksBefore ?? 0)}`);
        expect(after.length).toBeGreaterThan(0);
        expect(after.filter((e) => !e.ok).map((e) => e.detail)).toEqual([]);
        expect(pages.filter((p) => p.status !== 200)).toEqual([]);
        expect(await fallbacks(), 'reads went to the primary, counted').toBeGreaterThan(fallbacksBefore ?? 0);
        await rejoin(replica);
      }), 240_000);

    it('answered every request the faults met with the standard 503 body (00.09.0001) and Retry-After', () => {
      expect(refused.length, 'the faults met requests').toBeGreaterThan(0);
      const answers = refused.map((r) => ({ status: r.status, code: r.code, retryAfter: r.retryAfter !== null, ...(r.text ? { path: r.path, text: r.text } : {}) }));
      // The service's own account of its 500s: each logged error's SQLSTATE and message.
      const unhandled = children
        .flatMap((c) => c.stdout.join('').split('\n'))
        .filter((line) => line.includes('"unhandled error"'))
        .map((line) => {
          const err = (JSON.parse(line) as { err?: { code?: string; message?: string } }).err;
          return `${err?.code ?? ''} ${err?.message ?? ''}`;
        });
      expect(answers.filter((a) => a.status !== 503 || a.code !== '00.09.0001' || !a.retryAfter), [...new Set(unhandled)].join('; ')).toEqual([]);
    });
  });
}
