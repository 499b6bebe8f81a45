import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';
import { runDoctor } from '../src/connectors/doctor';
import { DlocalApiClient, DlocalRequestRefused, dlocalSignature, payloadSignature, verifyDlocalSignature } from '../src/connectors/dlocal/dlocal-api';
import { forgetDlocalTokens, renewAfterMs } from '../src/connectors/dlocal/dlocal-token';
import { DLOCAL_ACCOUNT_TYPES, DLOCAL_DOCUMENT_TYPES, DLOCAL_ERROR_CODES, DLOCAL_PAYOUT_STATUSES, DLOCAL_REJECTION_CODES, translateError, translatePayout } from '../src/connectors/dlocal/dlocal-codes';
import { planConnectors } from '../src/connectors/plan';
import { loggerOptions } from '../src/logger';
import { OUTCOME_CODES } from '../src/processor/outcome-codes';
import { processPayout, recheckPayouts } from '../src/payouts/process-payout';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
import { DlocalFake } from './fakes/dlocal-fake';
import { payoutRequestProblems } from './fakes/dlocal-schema';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 21).toString('base64');
const OWN_ACCOUNT = { clientId: 'merchant-own-client-id', clientSecret: 'merchant-own-client-secret-5511', secretKey: 'merchant-own-secret-key-9876543210', login: 'merchant-own-login' };
const OPENSSL_SIGNATURE = '8dddbb4b220f4c770a2dc711d7a6a0edcdcfb2f3ea0298be48e5f775fd0744f3';
const OPENSSL_PAYLOAD_SIGNATURE = 'aa9e2e3575f5d7098b6caccd790888c36d5fdb63342a73bada2d6a51747a8494';
const DOCS = readFileSync(new URL('../../../docs/connectors.md', import.meta.url), 'utf8');

type Item = Record<string, unknown>;
const example = (m: TestMerchant, referenceId: string, change: Item = {}): Item => {
  const found = PAYOUT_EXAMPLES.find((e) => e.item.reference_id === referenceId);
  if (!found) throw new Error(referenceId);
  return { ...structuredClone(found.item), contract_id: m.payout_contract_id, reference_id: `${referenceId}-${Math.random().toString(36).slice(2, 8)}`, ...change };
};

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

describe('dLocal signatures and tables', () => {
  it('signs X-Login + X-Date + body with HMAC-SHA256 in lower-case hex, and the payload alone for Payload-Signature', () => {
    // Computed independently: printf '%s' 'login2026-11-28T01:00:00.000Z{"a":1}' | openssl dgst -sha256 -hmac secret
    expect(dlocalSignature('secret', 'login', '2026-11-28T01:00:00.000Z', '{"a":1}')).toBe(OPENSSL_SIGNATURE);
    expect(payloadSignature('secret', '{"a":1}')).toBe(OPENSSL_PAYLOAD_SIGNATURE);
    expect(dlocalSignature('secret', 'login', '2026-11-28T01:00:00.000Z', '{"a":1}')).toMatch(/^[0-9a-f]{64}$/);
    expect(payloadSignature('secret', '{"a":1}')).not.toBe(dlocalSignature('secret', 'login', '2026-11-28T01:00:00.000Z', '{"a":1}'));
    const signature = dlocalSignature('k', 'L', 'D', 'B');
    expect(verifyDlocalSignature('k', { login: 'L', date: 'D', authorization: `V2-HMAC-SHA256, Signature: ${signature}` }, 'B')).toBe(true);
    expect(verifyDlocalSignature('k', { login: 'L', date: 'D', authorization: `V2-HMAC-SHA256, Signature: ${signature}` }, 'B ')).toBe(false);
    expect(verifyDlocalSignature('k', { login: 'other', date: 'D', authorization: `V2-HMAC-SHA256, Signature: ${signature}` }, 'B')).toBe(false);
    expect(verifyDlocalSignature('k', { login: 'L', date: 'E', authorization: `V2-HMAC-SHA256, Signature: ${signature}` }, 'B')).toBe(false);
    expect(verifyDlocalSignature('other-key', { login: 'L', date: 'D', authorization: `V2-HMAC-SHA256, Signature: ${signature}` }, 'B')).toBe(false);
    expect(verifyDlocalSignature('', { login: 'L', date: 'D', authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature('', 'L', 'D', 'B')}` }, 'B')).toBe(false);
  });

  it('translates every status and code into Colibri vocabulary', () => {
    expect(translatePayout({ id: 'D-1', status: 'PENDING' })).toEqual({ status: 'PENDING', processorId: 'D-1' });
    expect(translatePayout({ id: 'D-1', status: 'DELIVERED' })).toEqual({ status: 'PENDING', processorId: 'D-1' });
    expect(translatePayout({ id: 'D-1', status: 'PAID' })).toEqual({ status: 'APPROVED', processorId: 'D-1' });
    expect(translatePayout({ id: 'D-1', status: 'CANCELLED' })).toEqual({ status: 'DECLINED', code: 'CANCELED', description: OUTCOME_CODES.CANCELED });
    for (const [code, entry] of Object.entries(DLOCAL_REJECTION_CODES)) {
      expect(translatePayout({ status: 'REJECTED', status_code: code })).toEqual({ status: 'DECLINED', code: entry.code, description: OUTCOME_CODES[entry.code] });
    }
    expect(translatePayout({ status: 'REJECTED', status_code: '899' })).toMatchObject({ code: 'BANK_REJECTED' });
    expect(translatePayout({ id: 'D-1', status: 'SOMETHING' })).toEqual({ status: 'PENDING', processorId: 'D-1' });
    expect(translateError(403, 4001, 'Invalid credentials')).toMatchObject({ status: 'ERROR', code: 'CONNECTOR_AUTH' });
    expect(translateError(400, 5011, 'External ID already used')).toBeNull();
    expect(translateError(400, undefined, undefined)).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('prints its tables in docs/connectors.md', () => {
    for (const [status, entry] of Object.entries(DLOCAL_PAYOUT_STATUSES)) expect(DOCS).toMatch(new RegExp(`\\| \`${status}\` \\| ${entry.code} \\| ${entry.colibri} `));
    for (const [code, entry] of Object.entries(DLOCAL_REJECTION_CODES)) expect(DOCS).toContain(`| ${code} | ${entry.name} | \`${entry.code}\` |`);
    for (const [code, entry] of Object.entries(DLOCAL_ERROR_CODES)) expect(DOCS).toContain(`| ${code} | ${entry.name} | ${entry.code === null ? '(read back)' : `\`${entry.code}\``} |`);
    for (const [country, types] of Object.entries(DLOCAL_ACCOUNT_TYPES)) for (const [ours, theirs] of Object.entries(types)) expect(DOCS).toContain(`| ${country} | \`${ours}\` | \`${theirs}\` |`);
    for (const [country, types] of Object.entries(DLOCAL_DOCUMENT_TYPES)) for (const [ours, theirs] of Object.entries(types)) expect(DOCS).toContain(`| ${country} | \`${ours}\` | \`${theirs}\` |`);
    for (const code of ['BANK_REJECTED', 'BENEFICIARY_MISMATCH', 'COMPLIANCE_REJECTED', 'PAYOUT_RETURNED'] as const) expect(DOCS).toContain(`| \`${code}\` | ${OUTCOME_CODES[code]} |`);
  });

  it('refuses to start live with payouts enabled and no dLocal settings, naming them; doctor says the same', async () => {
    const env = { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'PAYOUT', COLIBRI_DATA_DIR: '/tmp/colibri-dlocal-doctor' };
    let refused: unknown;
    try {
      planConnectors(loadConfig(env));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toContain('PAYOUT: set COLIBRI_DLOCAL_CLIENT_ID, COLIBRI_DLOCAL_CLIENT_SECRET, COLIBRI_DLOCAL_SECRET_KEY (connector dlocal)');
    const out: string[] = [];
    expect(await runDoctor(loadConfig(env), (line) => out.push(line))).toBe(false);
    for (const name of ['COLIBRI_DLOCAL_CLIENT_ID', 'COLIBRI_DLOCAL_CLIENT_SECRET', 'COLIBRI_DLOCAL_SECRET_KEY']) expect(out.join('\n')).toContain(name);
  });

  it('keeps its fake honest: the schema refuses what dLocal would', () => {
    const good = { external_id: 'x', country: 'CL', currency: 'CLP', currency_to_pay: 'CLP', amount: 1000, payment_method_id: 'BANK_TRANSFER', flow_type: 'B2C', purpose: 'OTHER_SERVICES', beneficiary: { first_name: 'A', last_name: 'B', document: { type: 'RUT', id: '12345678-5' }, bank_account: { code: '012', account: '123', type: 'VISTA' } } };
    expect(payoutRequestProblems(good)).toEqual([]);
    expect(payoutRequestProblems({ ...good, amount: 1000.5 })).toEqual(['/amount has more than 0 decimals for CLP']);
    expect(payoutRequestProblems({ ...good, currency: 'USD' })).toEqual(['/currency must be CLP for CL']);
    expect(payoutRequestProblems({ ...good, currency_to_pay: 'USD' })).toEqual(['/currency_to_pay must be CLP for CL']);
    // The shape of a third-party sketch of v3 (document_type, bank_details) is not dLocal's payout object.
    expect(payoutRequestProblems({ ...good, beneficiary: { first_name: 'A', last_name: 'B', document: '12345678-5', document_type: 'RUT', bank_details: { bank_code: '012', bank_account: '123', account_type: 'VISTA' } } }).length).toBeGreaterThan(0);
    expect(payoutRequestProblems({ ...good, extra: 1 })[0]).toContain('must NOT have additional properties');
  });
});

describe('dLocal access tokens (OAuth2 client credentials)', () => {
  let fake: DlocalFake;
  const client = (change: { clientSecret?: string } = {}) => new DlocalApiClient({ apiUrl: fake.url, clientId: fake.clientId, clientSecret: change.clientSecret ?? fake.clientSecret, secretKey: fake.secretKey, timeoutMs: 5_000 });
  const paid = { external_id: 'e', country: 'CL', currency: 'CLP', currency_to_pay: 'CLP', amount: 1000, payment_method_id: 'BANK_TRANSFER', flow_type: 'B2C', purpose: 'OTHER_SERVICES', beneficiary: { first_name: 'A', last_name: 'B', document: { type: 'RUT', id: '12345678-5' }, bank_account: { code: '012', account: '123', type: 'VISTA' } } };
  beforeAll(async () => {
    fake = await new DlocalFake().start();
  });
  afterAll(async () => {
    await fake?.stop();
  });
  const reset = () => {
    forgetDlocalTokens();
    fake.tokenLifetimeSeconds = 180;
    fake.refuseBearer = false;
    fake.tokenRequests = 0;
    fake.requests.length = 0;
  };

  it('renews a 180-second token after 150 seconds, a short one a quarter of its life early', () => {
    expect(renewAfterMs(180)).toBe(150_000);
    expect(renewAfterMs(1)).toBe(750);
  });

  it('asks for one token per credential set and sends it as a Bearer with X-Version 3.0; a body carries its Payload-Signature', async () => {
    reset();
    const api = client();
    expect(await api.findPayout('none')).toBeNull();
    expect(await client().findPayout('none')).toBeNull();
    const created = await api.submitPayout({ ...paid, external_id: `e-${Date.now()}` });
    expect(created.status).toBe('PENDING');
    expect(fake.tokenRequests).toBe(1);
    const [token] = [...fake.tokens.keys()];
    for (const request of fake.requests.filter((r) => r.path !== '/oauth/token')) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${token}`, 'x-version': '3.0' });
      expect(request.headers['x-login']).toBeUndefined();
      expect(request.headers['payload-signature']).toBe(request.body === '' ? undefined : payloadSignature(fake.secretKey, request.body));
    }
    const grant = JSON.parse(fake.requests.find((r) => r.path === '/oauth/token')!.body) as Record<string, string>;
    expect(grant).toEqual({ grant_type: 'client_credentials', client_id: fake.clientId, client_secret: fake.clientSecret });
    // Another secret is another credential set: its own token (refused here, as the fake knows no such secret).
    await expect(client({ clientSecret: 'rotated-secret' }).findPayout('none')).rejects.toBeInstanceOf(DlocalRequestRefused);
    expect(fake.tokenRequests).toBe(2);
  });

  it('gets a new token shortly before the old one expires, and once more after a 401', async () => {
    reset();
    fake.tokenLifetimeSeconds = 2;
    const api = client();
    await api.findPayout('none');
    // Renewed after 1.5 s, before dLocal's 2 s are up: no request ever meets an expired token.
    await new Promise((r) => setTimeout(r, 1_600));
    await api.findPayout('none');
    expect(fake.tokenRequests).toBe(2);
    expect(fake.requests.filter((r) => r.status === 401)).toEqual([]);

    // The second token is still kept (renewed after 1.5 s); dLocal ends it early: one 401, one new token.
    fake.tokenLifetimeSeconds = 180;
    fake.expireTokens();
    expect(await api.findPayout('none')).toBeNull();
    expect(fake.requests.filter((r) => r.status === 401).length).toBe(1);
    expect(fake.tokenRequests).toBe(3);
    await api.findPayout('none');
    expect(fake.tokenRequests).toBe(3);
  });

  it('asks only once more when the new token is refused too, and then fails as refused credentials', async () => {
    reset();
    fake.refuseBearer = true;
    const before = fake.payouts.size;
    const error = await client().submitPayout({ ...paid, external_id: `e-${Date.now()}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DlocalRequestRefused);
    expect((error as DlocalRequestRefused).statusCode).toBe(401);
    expect(translateError(401, undefined, undefined)).toMatchObject({ status: 'ERROR', code: 'CONNECTOR_AUTH' });
    expect(fake.requests.filter((r) => r.path === '/payouts/v3').map((r) => r.status)).toEqual([401, 401]);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.payouts.size).toBe(before);
  });

  it('colibri doctor gets a token and reads through it, and names refused client credentials without showing them', async () => {
    reset();
    const base = { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'PAYOUT', COLIBRI_DATA_DIR: '/tmp/colibri-dlocal-doctor' };
    const good: string[] = [];
    await runDoctor(loadConfig({ ...base, ...fake.env() }), (line) => good.push(line));
    expect(good.join('\n')).toContain(`ok   dlocal: Payouts API reachable: ${fake.url} issued an access token and accepted GET /payouts/v3 (no such payout, as expected)`);
    forgetDlocalTokens();
    const bad: string[] = [];
    expect(await runDoctor(loadConfig({ ...base, ...fake.env(), COLIBRI_DLOCAL_CLIENT_SECRET: 'wrong-client-secret-88' }), (line) => bad.push(line))).toBe(false);
    expect(bad.join('\n')).toContain('(client credentials or IP address not accepted)');
    expect(bad.join('\n')).not.toContain('wrong-client-secret-88');
  });

  it('refuses wrong client credentials without a payout request, and names neither secret nor token in the error', async () => {
    reset();
    const error = (await client({ clientSecret: 'wrong-client-secret-77' }).findPayout('none').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(DlocalRequestRefused);
    expect(fake.requests.map((r) => r.path)).toEqual(['/oauth/token']);
    expect(`${error.message} ${error.stack}`).not.toContain('wrong-client-secret-77');
  });
});

for (const engine of ENGINES) {
  describe(`payouts through dLocal in live mode [${engine}]`, () => {
    let fake: DlocalFake;
    let service: TestService;
    let m: TestMerchant;

    beforeAll(async () => {
      fake = await new DlocalFake().start();
      service = await startTestService(engine, {
        env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'PAYOUT', ...fake.env('https://pay.example.com/connectors/dlocal/notifications') },
        logger: pino({ ...loggerOptions('debug') }, sink),
      });
      m = await service.merchant('Pagos Andinos');
    });
    afterAll(async () => {
      await service?.close();
      await fake?.stop();
    });

    const notifyUrl = () => `${service.baseUrl}/connectors/dlocal/notifications`;
    const payout = (txId: string) => service.ctx.db.selectFrom('payouts').selectAll().where('tx_id', '=', txId).executeTakeFirstOrThrow();
    const dispatch = (txId: string) => service.ctx.db.selectFrom('payout_dispatches').selectAll().where('tx_id', '=', txId).executeTakeFirstOrThrow();
    const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const value = await read();
        if (done(value)) return value;
        if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    const accepted = (txId: string) => until(() => dispatch(txId).catch(() => undefined), (d) => d?.status === 'ACCEPTED' || d?.status === 'SETTLED', `dispatch of ${txId}`);
    const create = async (items: Item[]) => {
      const response = await service.post('/payoutTransaction', { payoutTransactions: items }, { token: m.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return (response.body.payoutTransactionResponses as { tx_id: string; amount: number }[]).map((p) => p.tx_id);
    };
    const posts = () => fake.requests.filter((r) => r.method === 'POST').length;

    it('sends a batch to dLocal, signed and in dLocal words; notifications settle each payout once, whatever the repeats', async () => {
      const [co, pe, cl] = await create([example(m, 'co-cc-0001'), example(m, 'pe-cc-0002'), example(m, 'cl-cv-0001')]);
      for (const txId of [co!, pe!, cl!]) expect((await accepted(txId))!.status).toBe('ACCEPTED');
      const sent = fake.byExternalId(co!)!;
      expect(sent.body).toEqual({
        external_id: co, country: 'CO', currency: 'COP', currency_to_pay: 'COP', amount: 250000, payment_method_id: 'BANK_TRANSFER', flow_type: 'B2C', purpose: 'OTHER_SERVICES',
        notification_url: 'https://pay.example.com/connectors/dlocal/notifications',
        beneficiary: { first_name: 'Andrés Felipe', last_name: 'Gómez Restrepo', document: { type: 'CC', id: '1020304050' }, bank_account: { code: '1007', account: '12345678901', type: 'CHECKING' } },
      });
      // CL: a RUT without dots, the CuentaRUT as VISTA.
      expect(fake.byExternalId(cl!)!.body.beneficiary).toMatchObject({ document: { type: 'RUT' }, bank_account: { code: '012', account: '19000001', type: 'VISTA' } });
      expect((await payout(co!)).status).toBe('PROCESSING');

      fake.settle(co!, 'PAID');
      fake.settle(pe!, 'REJECTED', '805');
      fake.settle(cl!, 'CANCELLED');
      for (const txId of [co!, pe!, cl!]) {
        const answers = await fake.notify(txId, { times: 2, url: notifyUrl() });
        expect(answers.map((a) => a.status)).toEqual([200, 200]);
        expect(answers.map((a) => a.body)).toEqual([{ applied: true, duplicate: false }, { applied: false, duplicate: true }]);
      }
      expect(await payout(co!)).toMatchObject({ status: 'PAID', processor_id: sent.id });
      expect(await payout(pe!)).toMatchObject({ status: 'REJECTED', error_code: 'BENEFICIARY_MISMATCH', error_description: OUTCOME_CODES.BENEFICIARY_MISMATCH });
      expect(await payout(cl!)).toMatchObject({ status: 'CANCELED', error_code: 'CANCELED' });
      for (const txId of [co!, pe!, cl!]) expect((await dispatch(txId)).status).toBe('SETTLED');
      const history = await service.ctx.db.selectFrom('payout_status_history').select(['tx_id', 'status']).where('tx_id', 'in', [co!, pe!, cl!]).execute();
      expect(history.length).toBe(9); // CREATED, PROCESSING and one final status each: the repeats wrote nothing
    });

    it('applies notifications out of order, and a return after PAID gives the merchant its money back', async () => {
      const [txId] = await create([example(m, 'pe-cc-0001')]);
      await accepted(txId!);
      fake.settle(txId!, 'DELIVERED');
      fake.settle(txId!, 'PAID');
      const [pending, delivered, paid] = fake.byExternalId(txId!)!.history;
      // PAID first, then the older PENDING and DELIVERED arrive late: they change nothing.
      const answers = await fake.notify(txId!, { states: [paid!, pending!, delivered!], url: notifyUrl() });
      expect(answers.map((a) => a.body)).toEqual([{ applied: true, duplicate: false }, { applied: false, duplicate: false }, { applied: false, duplicate: false }]);
      expect((await payout(txId!)).status).toBe('PAID');

      fake.returnPayout(txId!);
      expect((await fake.notify(txId!, { url: notifyUrl() }))[0]!.body).toEqual({ applied: true, duplicate: false });
      const returned = await payout(txId!);
      expect(returned).toMatchObject({ status: 'REJECTED', error_code: 'PAYOUT_RETURNED' });
      expect((await dispatch(txId!)).returned_at).not.toBeNull();
      // The PAID message once more, late: nothing moves back.
      expect((await fake.notify(txId!, { states: [paid!], url: notifyUrl() }))[0]!.body).toEqual({ applied: false, duplicate: true });
      const journals = await sql<{ kind: string; total: string }>`
        select kind, sum(amount_minor)::text as total from ledger_entries where resource_id = ${txId} group by kind order by kind`.execute(service.ctx.db);
      expect(journals.rows.map((r) => r.kind)).toEqual(['payout.created', 'payout.paid', 'payout.returned']);
      expect(journals.rows.every((r) => r.total === '0')).toBe(true);
      const merchantSide = await sql<{ total: string }>`
        select coalesce(sum(amount_minor), 0)::text as total from ledger_entries where resource_id = ${txId} and account = 'merchant_payable'`.execute(service.ctx.db);
      expect(merchantSide.rows[0]!.total).toBe('0');
    });

    it('rejects at once what dLocal rejects in its answer, and refuses at creation what dLocal cannot take (a CO payout without a name)', async () => {
      const [closed] = await create([example(m, 'cl-cc-0001', { required_CL: { ...(example(m, 'cl-cc-0001').required_CL as Item), account_number: '1234563000' } })]);
      expect(await until(() => payout(closed!), (p) => p.status !== 'PROCESSING' && p.status !== 'CREATED', 'closed')).toMatchObject({ status: 'REJECTED', error_code: 'ACCOUNT_CLOSED' });
      const before = posts();
      const nameless = await service.post('/payoutTransaction', { payoutTransactions: [example(m, 'co-cc-0001'), example(m, 'co-nc-0001')] }, { token: m.token });
      expect(nameless.status).toBe(400);
      expect(nameless.body.errors).toEqual([{ code: '02.03.0001', description: expect.stringMatching(/^payoutTransactions\[1\]\.required_CO\.full_name: is required for CO payouts by this merchant's payout connector \(dLocal\)/) }]);
      expect(posts()).toBe(before);
    });

    it('reads accepted payouts back when no notification comes', async () => {
      const [txId] = await create([example(m, 'pe-ca-0001')]);
      await accepted(txId!);
      fake.settle(txId!, 'PAID');
      await service.ctx.db.updateTable('payout_dispatches').set({ next_check_at: new Date(Date.now() - 1000) }).where('tx_id', '=', txId!).execute();
      await recheckPayouts(service.ctx);
      expect(await until(() => payout(txId!), (p) => p.status === 'PAID', 'read back')).toMatchObject({ status: 'PAID' });
      expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/payouts/v3/${fake.byExternalId(txId!)!.id}`)).toBe(true);
    });

    it('hands a payout dLocal no longer has back to the payout job, which sends it again under the same external_id', async () => {
      const [txId] = await create([example(m, 'cl-cc-0001')]);
      await accepted(txId!);
      const first = fake.byExternalId(txId!)!;
      fake.payouts.delete(first.id);
      await service.ctx.db.updateTable('payout_dispatches').set({ next_check_at: new Date(Date.now() - 1000) }).where('tx_id', '=', txId!).execute();
      await recheckPayouts(service.ctx);
      const again = await until(async () => fake.byExternalId(txId!), (p) => p !== undefined, 'sent again');
      expect(again!.id).not.toBe(first.id);
      expect(again!.body).toEqual(first.body);
      expect((await until(() => dispatch(txId!), (d) => d.status === 'ACCEPTED', 'accepted again')).checks).toBe(1);
    });

    it('never sends twice: a lost answer, a 500 and a job run twice each end in one payout at dLocal', async () => {
      fake.fail('DROP_AFTER_ACTING');
      const [lost] = await create([example(m, 'cl-ca-0001')]);
      await until(() => dispatch(lost!).catch(() => undefined), (d) => d?.status === 'ACCEPTED', 'lost answer');
      expect([...fake.payouts.values()].filter((p) => p.externalId === lost).length).toBe(1);
      expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/payouts/v3?external_id=${lost}`)).toBe(true);

      fake.fail('HTTP_500');
      const [failedOnce] = await create([example(m, 'pe-cm-0001')]);
      await until(() => dispatch(failedOnce!).catch(() => undefined), (d) => d?.status === 'ACCEPTED', '500');
      expect([...fake.payouts.values()].filter((p) => p.externalId === failedOnce).length).toBe(1);

      const before = posts();
      await processPayout(service.ctx, failedOnce!, 7);
      await processPayout(service.ctx, failedOnce!, 8);
      expect(posts()).toBe(before);
      expect((await dispatch(failedOnce!)).status).toBe('ACCEPTED');
    });

    it('refuses notifications that are not signed by the account, or name no payout of its', async () => {
      const [txId] = await create([example(m, 'cl-cv-0002')]);
      await accepted(txId!);
      fake.settle(txId!, 'PAID');
      const forged = await fake.notify(txId!, { signWith: 'not-the-secret', url: notifyUrl() });
      expect(forged[0]).toMatchObject({ status: 401 });
      expect((await payout(txId!)).status).toBe('PROCESSING');
      const body = JSON.stringify({ id: 'D-4-x', external_id: '00000000-0000-4000-8000-000000000000', status: 'PAID', status_code: '200' });
      const date = new Date().toISOString();
      const stranger = await service.request('POST', '/connectors/dlocal/notifications', undefined, {
        raw: body, headers: { 'content-type': 'application/json', 'x-date': date, 'x-login': fake.login, authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature(fake.secretKey, fake.login, date, body)}` },
      });
      expect(stranger).toMatchObject({ status: 422, body: { errors: [{ code: '00.03.0005' }] } });
    });

    it('pays out with FX: USD converted into COP at the stored rate, the rate kept as a decimal string', async () => {
      const [txId] = await create([example(m, 'co-ca-0001', { original_amount: '100.00', original_currency: 'USD' })]);
      const stored = await payout(txId!);
      // Seeded rates: USD 5.3412 BRL, COP 0.00137 BRL: 100.00 USD = 389868.61 COP (half-up), at 3898.6861313869 COP per USD.
      expect(stored).toMatchObject({ original_currency: 'USD', original_amount_minor: 10_000n, currency: 'COP', amount_minor: 38_986_861n, fx_rate: '3898.6861313869', fx_rate_date: '2026-11-20' });
      const shown = await service.get(`/payoutTransaction/${txId}`, { token: m.token });
      expect(shown.body).toMatchObject({ original_amount: 100, original_asset: 'USD', amount: 389868.61, asset: 'COP', fx_rate: '3898.6861313869', fx_rate_date: '2026-11-20' });
      await accepted(txId!);
      expect(fake.byExternalId(txId!)!.body).toMatchObject({ currency: 'COP', amount: Number(stored.customer_amount_minor) / 100 });
    });

    it("pays a merchant's payouts through its own dLocal account, whose credentials are stored encrypted and never shown", async () => {
      const own = await new DlocalFake(OWN_ACCOUNT).start();
      try {
        const other = await service.merchant('Remesas Propias');
        const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
        const put = await service.request('PUT', `/admin/merchants/${other.merchant_id}/connectors/PAYOUT`, { connector: 'dlocal', credentials: { client_id: own.clientId, client_secret: own.clientSecret, secret_key: own.secretKey, api_url: own.url } }, admin);
        expect(put.status, put.text).toBe(200);
        expect(put.body.credential_keys).toEqual(['api_url', 'client_id', 'client_secret', 'secret_key']);
        const listed = await service.get(`/admin/merchants/${other.merchant_id}/connectors`, admin);
        for (const secret of [own.secretKey, own.clientSecret]) expect(listed.text + put.text).not.toContain(secret);
        const row = await service.ctx.db.selectFrom('merchant_connectors').selectAll().where('merchant_id', '=', other.merchant_id).executeTakeFirstOrThrow();
        for (const secret of [own.secretKey, own.clientSecret, own.clientId]) expect(row.credentials_ciphertext).not.toContain(secret);

        const response = await service.post('/payoutTransaction', { payoutTransactions: [example(other, 'pe-ca-0001')] }, { token: other.token });
        expect(response.status, response.text).toBe(200);
        const txId = response.body.payoutTransactionResponses[0].tx_id as string;
        await accepted(txId);
        expect(own.byExternalId(txId)).toBeDefined();
        expect(fake.byExternalId(txId)).toBeUndefined();
        own.settle(txId, 'PAID');
        // Signed by the instance's account, the merchant's payout's notification is not the merchant's account's: refused.
        expect((await own.notify(txId, { url: notifyUrl(), signWith: fake.secretKey }))[0]!.status).toBe(401);
        // Nor does the instance's account speak for this merchant's payouts, though its signature is Colibri's.
        const body = JSON.stringify(own.view(own.byExternalId(txId)!));
        const date = new Date().toISOString();
        const crossed = await service.request('POST', '/connectors/dlocal/notifications', undefined, {
          raw: body, headers: { 'content-type': 'application/json', 'x-date': date, 'x-login': fake.login, authorization: `V2-HMAC-SHA256, Signature: ${dlocalSignature(fake.secretKey, fake.login, date, body)}` },
        });
        expect(crossed.status).toBe(401);
        expect((await payout(txId)).status).toBe('PROCESSING');
        expect((await own.notify(txId, { url: notifyUrl() }))[0]!.body).toEqual({ applied: true, duplicate: false });
        expect((await payout(txId)).status).toBe('PAID');
      } finally {
        await own.stop();
      }
    });

    it('never logs the dLocal credentials nor the access tokens', () => {
      const text = lines.join('');
      expect(text.length).toBeGreaterThan(0);
      const tokens = [...fake.tokens.keys()];
      expect(tokens.length).toBeGreaterThan(0);
      // Tokens are kept: a few served every call of this run (one per 150 s at most, or after a restart of the token).
      expect(fake.requests.filter((r) => r.path !== '/oauth/token').length).toBeGreaterThan(5 * fake.tokenRequests);
      for (const secret of [fake.secretKey, fake.clientSecret, OWN_ACCOUNT.secretKey, OWN_ACCOUNT.clientSecret, ...tokens]) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/fake-token-/);
    });
  });
}
