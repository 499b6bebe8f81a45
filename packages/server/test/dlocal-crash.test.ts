import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
import { DlocalFake } from './fakes/dlocal-fake';
import { api, freePort, spawnColibri, stopChildren, waitForOutput, type Child } from './processes';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The payout worker killed (SIGKILL) while dLocal holds the answer to a payout it already created: after the
 * restart the job, taken over, asks dLocal for the external_id before sending, finds the payout, and never
 * sends it twice. Runs `colibri serve` as its own process on PGlite (its data directory survives the kill).
 */
describe('a payout in flight when the process is killed', () => {
  let fake: DlocalFake;
  let dataDir: string;
  let service: Child | undefined;

  beforeAll(async () => {
    fake = await new DlocalFake().start();
    dataDir = mkdtempSync(join(tmpdir(), 'colibri-dlocal-crash-'));
  });
  afterAll(async () => {
    if (service) await stopChildren([service]);
    await fake.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is found at dLocal after the restart, not sent again, and settled by its notification', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port), HOST: '127.0.0.1', COLIBRI_DATA_DIR: dataDir, DATABASE_URL: '',
      COLIBRI_ADMIN_TOKEN: `adm_crash_${randomBytes(8).toString('hex')}`, COLIBRI_JOB_LEASE_MS: '2000',
      COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: Buffer.alloc(32, 5).toString('base64'), COLIBRI_LIVE_METHODS: 'PAYOUT',
      ...fake.env('https://pay.example.com/connectors/dlocal/notifications'),
    };
    service = spawnColibri('serve', env);
    await waitForOutput(service, 'is running at', 60_000);
    const created = await api(base, 'POST', '/admin/merchants', { name: 'Crash Payouts' }, { authorization: `Bearer ${env.COLIBRI_ADMIN_TOKEN}` });
    expect(created.status, created.text).toBe(201);
    const login = async () => ({ 'x-auth-token': (await api(base, 'POST', '/auth', { apiKey: created.body.api_key, apiSecret: created.body.api_secret })).body.token as string });
    const item = { ...structuredClone(PAYOUT_EXAMPLES.find((e) => e.item.reference_id === 'pe-cc-0001')!.item), contract_id: created.body.payout_contract_id };

    fake.holdAnswers = true;
    const batch = await api(base, 'POST', '/payoutTransaction', { payoutTransactions: [item] }, await login());
    expect(batch.status, batch.text).toBe(200);
    const txId = batch.body.payoutTransactionResponses[0].tx_id as string;
    for (let waited = 0; !fake.byExternalId(txId); waited += 20) {
      if (waited > 20_000) throw new Error('dLocal never received the payout');
      await sleep(20);
    }
    // dLocal has the payout; Colibri is waiting for the answer when it dies.
    service.process.kill('SIGKILL');
    await service.exited;
    fake.holdAnswers = false;

    service = spawnColibri('serve', env);
    await waitForOutput(service, 'is running at', 60_000);
    for (let waited = 0; !fake.requests.some((r) => r.method === 'GET' && r.path === `/payouts/v3?external_id=${txId}`); waited += 50) {
      if (waited > 30_000) throw new Error(`the restarted worker never asked dLocal: ${JSON.stringify(fake.requests.map((r) => `${r.method} ${r.path}`))}`);
      await sleep(50);
    }
    await sleep(300);
    expect([...fake.payouts.values()].filter((p) => p.externalId === txId)).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === 'POST' && JSON.parse(r.body || '{}').external_id === txId)).toHaveLength(0); // the held POST was never answered (so never logged): any resend would be logged, answered 5011
    expect((await api(base, 'GET', `/payoutTransaction/${txId}`, undefined, await login())).body.status).toBe('PROCESSING');

    fake.settle(txId, 'PAID');
    const [answer] = await fake.notify(txId, { url: `${base}/connectors/dlocal/notifications` });
    expect(answer).toEqual({ status: 200, body: { applied: true, duplicate: false } });
    expect((await api(base, 'GET', `/payoutTransaction/${txId}`, undefined, await login())).body.status).toBe('PAID');
  }, 120_000);
});
