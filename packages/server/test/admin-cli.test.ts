import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { describeEachEngine, createTestDatabase, ENGINES } from './harness';
import { spawnColibri, stopChildren, waitForOutput } from './processes';

const run = promisify(execFile);
const CLI = new URL('../bin/colibri.js', import.meta.url).pathname;

function expectCreatedMerchantShape(body: Record<string, unknown>, name: string) {
  expect(Object.keys(body).sort()).toEqual(['api_key', 'api_secret', 'contract_id', 'merchant_id', 'payout_contract_id', 'user', 'webhook_secret']);
  expect(body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(body.user).toEqual({
    id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    username: expect.any(String),
    name,
    enable: true,
    open: true,
    roles: ['MERCHANT_ADMIN'],
    merchant_id: body.merchant_id,
  });
}

describeEachEngine('POST /admin/merchants', (service) => {
  it('requires the admin bearer token', async () => {
    const missing = await service().post('/admin/merchants', { name: 'X' });
    expect(missing.status).toBe(401);
    const wrong = await service().post('/admin/merchants', { name: 'X' }, { headers: { authorization: 'Bearer adm_wrong' } });
    expect(wrong.status).toBe(401);
    // A merchant token is not an admin token.
    const m = await service().merchant();
    const merchantToken = await service().post('/admin/merchants', { name: 'X' }, { headers: { authorization: `Bearer ${m.token}` }, token: m.token });
    expect(merchantToken.status).toBe(401);
  });

  it('creates a merchant whose credentials work, per the contract', async () => {
    const response = await service().post('/admin/merchants', { name: 'Padaria Central' }, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(response.status).toBe(201);
    expectCreatedMerchantShape(response.body, 'Padaria Central');
    const auth = await service().post('/auth', { apiKey: response.body.api_key, apiSecret: response.body.api_secret });
    expect(auth.status).toBe(200);
    expect(auth.body.user.merchant_id).toBe(response.body.merchant_id);
  });

  it('validates the name', async () => {
    const response = await service().post('/admin/merchants', { name: '' }, { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ code: '00.01.0007', description: 'name: must not be empty.' }]);
  });

  it('colibri merchant create --url goes through a running service', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'merchant', 'create', '--name', 'Via API', '--json', '--url', service().baseUrl, '--admin-token', service().ctx.adminToken]);
    const body = JSON.parse(stdout);
    expectCreatedMerchantShape(body, 'Via API');
    expect((await service().post('/auth', { apiKey: body.api_key, apiSecret: body.api_secret })).status).toBe(200);
  });
});

for (const engine of ENGINES) {
  it(`colibri migrate and merchant create --json work directly on a ${engine} database`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'colibri-cli-'));
    const database = engine === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const env = { ...process.env, COLIBRI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: database?.url ?? '' };
    try {
      const migrated = await run(process.execPath, [CLI, 'migrate'], { env });
      expect(migrated.stdout).toMatch(/applied: 0001-foundation|database is up to date/);
      const { stdout } = await run(process.execPath, [CLI, 'merchant', 'create', '--name', 'CLI Shop', '--json'], { env });
      const body = JSON.parse(stdout);
      expectCreatedMerchantShape(body, 'CLI Shop');
      const again = await run(process.execPath, [CLI, 'migrate'], { env });
      expect(again.stdout).toContain('database is up to date');
    } finally {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Three processes that each open PGlite: 50 s were measured on a loaded two-core machine.
  }, 150_000);
}

for (const engine of ENGINES) {
  it(`colibri serve prints the demo merchant's contract ids on a first start on ${engine}, and GET /me lists them`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'colibri-first-start-'));
    const database = engine === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const service = spawnColibri('serve', { COLIBRI_DATA_DIR: dataDir, PORT: '0', COLIBRI_WORKERS: 'off', DATABASE_URL: database?.url ?? '' });
    try {
      // Generous: a first start bundles, migrates and creates the demo merchant, slow on a loaded machine.
      await waitForOutput(service, 'Get an access token', 150_000);
      const banner = service.output.join('');
      const printed = (label: string) => new RegExp(`^ {4}${label}: +(\\S+)`, 'm').exec(banner)?.[1];
      const apiKey = printed('api key');
      const apiSecret = printed('api secret');
      const contractId = printed('contract id');
      const payoutContractId = printed('payout contract id');
      expect(contractId).toMatch(/^CT-/);
      expect(payoutContractId).toMatch(/^PO-/);
      const base = /is running at (http:\/\/\S+)/.exec(banner)?.[1];
      const auth = await fetch(`${base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey, apiSecret }) });
      const { token } = (await auth.json()) as { token: string };
      const me = (await (await fetch(`${base}/me`, { headers: { 'x-auth-token': token } })).json()) as { contracts: unknown };
      expect(me.contracts).toEqual([
        { contract_id: contractId, type: 'PAYIN' },
        { contract_id: payoutContractId, type: 'PAYOUT' },
      ]);
    } finally {
      await stopChildren([service]);
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
}
