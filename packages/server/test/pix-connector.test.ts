import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { hasError, parsePix } from 'pix-utils';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { runDoctor } from '../src/connectors/doctor';
import { pixTxid, reconcilePixCharges } from '../src/checkout/pix-charges';
import { COB_STATUSES, DEVOLUCAO_STATUSES, PROBLEM_TYPES, translateProblem } from '../src/connectors/pix/pix-codes';
import { PixConnector, parsePixSettings } from '../src/connectors/pix/pix-connector';
import { pixWebhookServerOf, startPixWebhookServer } from '../src/checkout/pix-webhook';
import { OUTCOME_CODES } from '../src/processor/outcome-codes';
import { balanceDay } from '../src/ledger/ledger';
import { addDays } from '../src/rails/calendar';
import { ProcessorUnavailableError } from '../src/processor/processor';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { PixPspFake } from './fakes/pix-psp-fake';
import { createTestCa, pemFolder, type Issued, type TestCa } from './fakes/test-pki';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 13).toString('base64');

/** Certificates made for this file: the PSP's CA (its server, Colibri's client, its webhook client), Colibri's listener, and a stranger. */
let pspCa: TestCa;
let strangerCa: TestCa;
let listener: Issued;
let pspWebhookClient: Issued;
let strangerClient: Issued;
let folder: ReturnType<typeof pemFolder>;
let colibriClientFiles: { cert: string; key: string; ca: string };
let listenerFiles: Record<string, string>;

beforeAll(() => {
  pspCa = createTestCa('Test PSP CA');
  const colibriCa = createTestCa('Test Colibri CA');
  strangerCa = createTestCa('Stranger CA');
  listener = colibriCa.issue('127.0.0.1', 'server');
  pspWebhookClient = pspCa.issue('psp-webhook', 'client');
  strangerClient = strangerCa.issue('psp-webhook', 'client');
  const colibriClient = pspCa.issue('colibri', 'client');
  folder = pemFolder();
  colibriClientFiles = { cert: folder.write('client.crt', colibriClient.cert), key: folder.write('client.key', colibriClient.key), ca: folder.write('psp-ca.crt', pspCa.cert) };
  listenerFiles = {
    COLIBRI_PIX_WEBHOOK_PORT: '0',
    COLIBRI_PIX_WEBHOOK_HOST: '127.0.0.1',
    COLIBRI_PIX_WEBHOOK_CERT: folder.write('listener.crt', listener.cert),
    COLIBRI_PIX_WEBHOOK_KEY: folder.write('listener.key', listener.key),
    COLIBRI_PIX_WEBHOOK_CLIENT_CA: colibriClientFiles.ca,
  };
  // The PSP trusts Colibri's listener through Colibri's CA.
  listenerCa = colibriCa.cert;
});
let listenerCa: string;
afterAll(() => folder?.remove());

const newFake = () => new PixPspFake({ server: pspCa.issue('127.0.0.1', 'server'), clientCa: pspCa.cert }).start();

for (const engine of ENGINES) {
  describe(`PIX through API Pix in live mode [${engine}]`, () => {
    let fake: PixPspFake;
    let service: TestService;
    let receiver: CallbackReceiver;
    let webhook: string;

    beforeAll(async () => {
      fake = await newFake();
      receiver = await startReceiver();
      // Reconciliation passes are run by the tests themselves (reconcilePixCharges), not on a timer.
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_LIVE_METHODS: 'PIX', COLIBRI_PIX_RECONCILE_MS: '3600000', ...fake.env(colibriClientFiles), ...listenerFiles } });
      webhook = `https://127.0.0.1:${pixWebhookServerOf(service.app)!.port}/connectors/pix/webhook/pix`;
    });
    afterAll(async () => {
      await service?.close();
      await fake?.stop();
      await receiver?.close();
    });

    const notify = (items: readonly Record<string, unknown>[], client: Issued | null = pspWebhookClient) => fake.notify(webhook, items, { ...(client ? { client } : {}), ca: listenerCa });
    const checkout = async (m: TestMerchant, amount = '25.00') => {
      const generated = await service.post('/checkout/generate', {
        contractId: m.contract_id, amount, asset: 'BRL', method: 'PIX', referenceId: `order-${Date.now()}`, expiresIn: 900,
        notificationUrl: `${receiver.url}/payments`, checkoutNotificationUrl: `${receiver.url}/checkouts`,
      }, { token: m.token });
      expect(generated.status, JSON.stringify(generated.body)).toBe(200);
      return generated.body as { checkout_id: string; status: string; payment: { payment_token: string; transaction_status: string; pix?: { br_code: string } } };
    };
    const paymentRow = (token: string) => service.ctx.db.selectFrom('payments').select(['status', 'end_to_end_id', 'processor_id', 'refunded_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow();
    const refundOf = async (m: TestMerchant, id: number, until: (s: string) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const body = (await service.get(`/refund/${id}`, { token: m.token })).body;
        if (until(body.refund_status)) return body;
        if (Date.now() > deadline) throw new Error(`refund ${id} still ${body.refund_status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    it('issues a cob whose dynamic BR Code is shown at checkout, and is paid through the /pix webhook over mutual TLS', async () => {
      const m = await service.merchant('Loja Azul');
      const session = await checkout(m);
      const token = session.payment.payment_token;
      const txid = pixTxid(token);
      const cob = fake.cobs.get(txid)!;
      expect(session.status).toBe('PROCESSING');
      expect(cob.body).toEqual({ calendario: { expiracao: expect.any(Number) }, valor: { original: '25.00', modalidadeAlteracao: 0 }, chave: fake.receiverKey });
      // 900 s less the margin that lets a last-moment PIX be heard of before the attempt lapses.
      expect((cob.body.calendario as { expiracao: number }).expiracao).toBeGreaterThan(830);
      expect((cob.body.calendario as { expiracao: number }).expiracao).toBeLessThanOrEqual(840);
      // The BR Code is the standard's dynamic code: it carries the PSP's location, read back by an independent parser.
      const parsed = parsePix(session.payment.pix!.br_code);
      if (hasError(parsed)) throw new Error(parsed.message);
      expect(parsed).toMatchObject({ type: 'DYNAMIC', url: cob.location, merchantName: 'LOJA AZUL' });
      const page = await service.get(`/pay/${session.checkout_id}`);
      expect(page.text).toContain(session.payment.pix!.br_code);

      const pix = fake.pay(txid);
      const answer = await notify([fake.pixView(pix)]);
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 200, body: { applied: 1, duplicates: 0 } });
      // Applied before the webhook is answered: no reconciliation pass ran.
      expect(await paymentRow(token)).toMatchObject({ status: 'PAID', end_to_end_id: pix.endToEndId, processor_id: pix.endToEndId });
      const done = await service.get(`/checkout/${session.checkout_id}`, { token: m.token });
      expect(done.body.status).toBe('PAID');
      await receiver.waitFor(() => receiver.at('/payments').some((c) => c.body.includes('"PAID"')) && receiver.at('/checkouts').some((c) => c.body.includes('"PAID"')), 10_000, 'PAID callbacks');

      // Delivered again (the PSP retries until it hears 200): applied once.
      expect(await notify([fake.pixView(pix), fake.pixView(pix)])).toMatchObject({ status: 200, body: { applied: 0, duplicates: 2 } });
      const history = await service.ctx.db.selectFrom('payment_status_history').select('status').where('payment_token', '=', token).execute();
      expect(history.map((h) => h.status)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
      expect(fake.received.every((r) => r.problems.length === 0)).toBe(true);
    });

    it('refunds by endToEndId through devolução, reading its status back until DEVOLVIDO, and takes NAO_REALIZADO by webhook in any order', async () => {
      const m = await service.merchant();
      const session = await checkout(m, '40.00');
      const token = session.payment.payment_token;
      const pix = fake.pay(pixTxid(token));
      expect((await notify([fake.pixView(pix)])).status).toBe(200);

      const first = await service.post('/refund', { payment_token: token, amount: 15 }, { token: m.token });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.refund_status).toBe('PROCESSING');
      const put = fake.received.find((r) => r.method === 'PUT' && r.path === `/api/v2/pix/${pix.endToEndId}/devolucao/colibri${first.body.refund_id}`);
      expect(put?.body).toEqual({ valor: '15.00', natureza: 'ORIGINAL' });
      expect((await refundOf(m, first.body.refund_id, (s) => s !== 'PROCESSING')).refund_status).toBe('COMPLETED');
      const reads = fake.received.filter((r) => r.method === 'GET' && r.path.endsWith(`/devolucao/colibri${first.body.refund_id}`));
      expect(reads.length).toBeGreaterThanOrEqual(2);
      expect(await paymentRow(token)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded_minor: 1500n });

      // The second refund is refused by the payer's bank; the PSP notifies it before any read settles it.
      fake.readsBeforeSettling = 1_000;
      const second = await service.post('/refund', { payment_token: token, amount: 5 }, { token: m.token });
      expect(second.body.refund_status).toBe('PROCESSING');
      const id = `colibri${second.body.refund_id}`;
      fake.settle(pix.endToEndId, id, 'NAO_REALIZADO');
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      const failed = await refundOf(m, second.body.refund_id, (s) => s !== 'PROCESSING');
      expect(failed.refund_status).toBe('FAILED');
      const row = await service.ctx.db.selectFrom('refunds').select(['error_code', 'error_description']).where('refund_id', '=', BigInt(second.body.refund_id)).executeTakeFirstOrThrow();
      expect(row).toEqual({ error_code: 'REFUND_REJECTED', error_description: OUTCOME_CODES.REFUND_REJECTED });
      // An older notification (the devolução still EM_PROCESSAMENTO) arriving late changes nothing settled.
      const stale = { ...fake.pixView(pix), devolucoes: [{ ...(fake.pixView(pix).devolucoes as object[])[1], status: 'EM_PROCESSAMENTO' }] };
      expect((await notify([stale])).status).toBe(200);
      expect((await service.get(`/refund/${second.body.refund_id}`, { token: m.token })).body.refund_status).toBe('FAILED');
      expect(await paymentRow(token)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded_minor: 1500n });
      fake.readsBeforeSettling = 1;
    });

    it("reconciles the PSP's list of received PIX and their devoluções: matched, one it has that Colibri does not, one it lost", async () => {
      const m = await service.merchant();
      const admin = { authorization: `Bearer ${service.ctx.adminToken}` };
      const paid = async (amount: string) => {
        const token = (await checkout(m, amount)).payment.payment_token;
        const pix = fake.pay(pixTxid(token));
        expect((await notify([fake.pixView(pix)])).status).toBe(200);
        return { token, pix };
      };
      const a = await paid('30.00');
      await paid('20.00');
      const refund = await service.post('/refund', { payment_token: a.token, amount: 10 }, { token: m.token });
      expect((await refundOf(m, refund.body.refund_id, (s) => s !== 'PROCESSING')).refund_status).toBe('COMPLETED');
      const stranger = fake.receiveUnknown('7.00');
      // A PIX the PSP no longer lists, received two days ago: past its settlement date (D+0).
      const lost = await paid('12.00');
      fake.forget(lost.pix.endToEndId);
      await sql`update payments set created_at = created_at - interval '2 days', paid_at = paid_at - interval '2 days' where payment_token = ${lost.token}`.execute(service.ctx.db);
      const today = balanceDay(new Date(), 'BRL');
      const from = addDays(today, -3);

      const path = `/admin/reconciliation/imports?processor=pix&from=${from}&to=${today}`;
      const imported = await service.post(path, undefined, { headers: admin });
      expect(imported.status, JSON.stringify(imported.body)).toBe(201);
      expect(imported.body).toMatchObject({ processor: 'pix', period_from: `${addDays(from, 0)} 03:00:00` });
      const run = (await service.get(`/admin/reconciliation/runs/${imported.body.run_id}?size=1000`, { headers: admin })).body;
      const mine = run.unmatched.content.filter((l: { merchant_id: string | null; psp_reference: string | null }) => l.merchant_id === m.merchant_id || l.psp_reference === stranger.endToEndId);
      expect(mine).toEqual([
        expect.objectContaining({ reason: 'MISSING_IN_COLIBRI', merchant_id: null, psp_reference: stranger.endToEndId, reported_amount: 7, record_type: 'Settled' }),
        expect.objectContaining({ reason: 'MISSING_AT_PROCESSOR', merchant_id: m.merchant_id, resource_id: lost.token, psp_reference: lost.pix.endToEndId, expected_amount: 12 }),
      ]);
      // Every line of the PSP for this merchant's payments and refund matched: none of them is listed.
      expect(run.matched).toBeGreaterThanOrEqual(3);
      expect(fake.received.filter((r) => r.path === '/api/v2/pix').every((r) => r.problems.length === 0)).toBe(true);

      // Asked again while the PSP's answer is the same: the first run, nothing written.
      const again = await service.post(path, undefined, { headers: admin });
      expect([again.status, again.body.run_id]).toEqual([200, imported.body.run_id]);
      const wrong = await service.post(`/admin/reconciliation/imports?processor=pix&from=${today}&to=${from}`, undefined, { headers: admin });
      expect([wrong.status, wrong.body.errors[0].code]).toEqual([400, '11.01.0006']);
    });

    it('refuses a client certificate its CA did not issue, no certificate, and an unknown txid, applying nothing', async () => {
      const m = await service.merchant();
      const session = await checkout(m);
      const token = session.payment.payment_token;
      const pix = fake.pay(pixTxid(token));
      const stranger = await notify([fake.pixView(pix)], strangerClient);
      expect(stranger.status).toBe(0);
      const anonymous = await notify([fake.pixView(pix)], null);
      expect(anonymous.status).toBe(0);
      const unknown = await notify([{ ...fake.pixView(pix), txid: 'f'.repeat(32) }, fake.pixView(pix)]);
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors[0].code).toBe('00.03.0005');
      expect(await paymentRow(token)).toMatchObject({ status: 'CREATED', end_to_end_id: null });
      // The real delivery is then applied.
      expect((await notify([fake.pixView(pix)])).status).toBe(200);
      expect((await paymentRow(token)).status).toBe('PAID');
    });

    it('leaves the attempt waiting through a PSP 5xx and a timeout, then reconciles it by GET /cob/{txid}, and a lost notification too', async () => {
      const m = await service.merchant();
      for (const fault of ['HTTP_503_AFTER', 'TIMEOUT_AFTER', 'HTTP_500_BEFORE'] as const) {
        fake.faults.push(fault);
        const session = await checkout(m);
        const token = session.payment.payment_token;
        expect(session.payment.pix, fault).toBeUndefined();
        expect(session.payment.transaction_status).toBe('CREATED');
        expect((await service.get(`/checkout/${session.checkout_id}`, { token: m.token })).body.status).toBe('PROCESSING');
        expect(fake.cobs.has(pixTxid(token)), fault).toBe(fault !== 'HTTP_500_BEFORE');
        expect(await reconcilePixCharges(service.ctx, { olderThanMs: 0 })).toBeGreaterThanOrEqual(1);
        const codes = await service.ctx.db.selectFrom('checkout_payment_codes').select('br_code').where('payment_token', '=', token).executeTakeFirstOrThrow();
        expect(codes.br_code, fault).toContain(fake.cobs.get(pixTxid(token))!.location);
        expect(fake.received.filter((r) => r.method === 'PUT' && r.path.endsWith(pixTxid(token))).length, fault).toBe(fault === 'HTTP_500_BEFORE' ? 2 : 1);

        // Paid, but the PSP's notification never comes: the next pass reads the charge CONCLUIDA.
        const pix = fake.pay(pixTxid(token));
        await reconcilePixCharges(service.ctx, { olderThanMs: 0 });
        expect(await paymentRow(token), fault).toMatchObject({ status: 'PAID', end_to_end_id: pix.endToEndId });
      }
    });

    it("takes a merchant's own PSP credentials, encrypted, and fails the attempt whose charge the PSP refuses", async () => {
      const m = await service.merchant();
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const listenerOnly = await service.request('PUT', `/admin/merchants/${m.merchant_id}/connectors/PIX`, { connector: 'pix', credentials: { webhook_port: '9443' } }, admin);
      expect(listenerOnly.status).toBe(400);
      const key = readFileSync(colibriClientFiles.key, 'utf8');
      const put = await service.request('PUT', `/admin/merchants/${m.merchant_id}/connectors/PIX`, { connector: 'pix', credentials: { receiver_key: 'outra-chave@example.com', key } }, admin);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const stored = await service.ctx.db.selectFrom('merchant_connectors').select('credentials_ciphertext').where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
      expect(Buffer.from(stored.credentials_ciphertext, 'base64').toString('latin1')).not.toContain('PRIVATE KEY');

      const session = await checkout(m);
      const cob = fake.received.at(-1)!;
      expect(cob).toMatchObject({ method: 'PUT', path: `/api/v2/cob/${pixTxid(session.payment.payment_token)}`, problems: [] });
      expect((cob.body as { chave: string }).chave).toBe('outra-chave@example.com');
      expect(session.payment.transaction_status).toBe('ERROR');
      const row = await service.ctx.db.selectFrom('payments').select(['status', 'error_code']).where('payment_token', '=', session.payment.payment_token).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'ERROR', error_code: 'INVALID_REQUEST' });
    });

    it('withdraws the charge of an attempt the payer left, and refreshes its OAuth2 token when the PSP revokes it', async () => {
      const m = await service.merchant();
      const generated = await service.post('/checkout/generate', { contractId: m.contract_id, amount: '12.00', asset: 'BRL', method: 'PIX', referenceId: 'order-cancel', expiresIn: 60 }, { token: m.token });
      const token = generated.body.payment.payment_token as string;
      const before = fake.tokenRequests;
      fake.revokeTokens();
      await service.ctx.db.updateTable('payments').set({ expires_at: new Date(Date.now() - 1_000) }).where('payment_token', '=', token).execute();
      await service.ctx.db.updateTable('checkout_sessions').set({ expires_at: new Date(Date.now() - 1_000) }).where('checkout_id', '=', generated.body.checkout_id).execute();
      await service.background.sweep();
      await reconcilePixCharges(service.ctx, { olderThanMs: 0 });
      expect((await paymentRow(token)).status).toBe('EXPIRED');
      expect(fake.cobs.get(pixTxid(token))!.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
      expect(fake.tokenRequests).toBe(before + 1);
      const tokenCalls = fake.received.filter((r) => r.path === '/oauth/token');
      expect(tokenCalls.at(-1)?.body).toMatchObject({ grant_type: 'client_credentials', scope: 'cob.write cob.read pix.write pix.read' });
    });
  });
}

describe('PIX connector without a database', () => {
  it('completes the mutual TLS handshake only with a client certificate the PSP trusts', async () => {
    const fake = await newFake();
    try {
      const trusted = new PixConnector(parsePixSettings(settingsOf(fake, colibriClientFiles)), undefined as never);
      await expect(trusted.api.accessToken()).resolves.toEqual(expect.any(String));
      const strangerFiles = { cert: folder.write('stranger.crt', strangerClient.cert), key: folder.write('stranger.key', strangerClient.key), ca: colibriClientFiles.ca };
      const stranger = new PixConnector(parsePixSettings(settingsOf(fake, strangerFiles)), undefined as never);
      await expect(stranger.createPixCharge({ merchantId: 'm', merchantName: 'X', txid: 'a'.repeat(32), amountMinor: 100n, expiresInSeconds: 60 })).rejects.toBeInstanceOf(ProcessorUnavailableError);
      expect(fake.received.filter((r) => r.path.includes('/cob/'))).toEqual([]);
      // A short-lived token is renewed before it expires, without a refused call.
      fake.tokenTtlSeconds = 1;
      const shortLived = new PixConnector(parsePixSettings(settingsOf(fake, colibriClientFiles)), undefined as never);
      const a = await shortLived.api.accessToken();
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await shortLived.api.accessToken()).not.toBe(a);
      expect(shortLived.api.tokensIssued).toBe(2);
    } finally {
      await fake.stop();
    }
  });

  it('refuses a client certificate of the right CA without a pinned fingerprint, before reading the delivery', async () => {
    const fake = await newFake();
    const pinned = await startPixWebhookServer(undefined as never, { host: '127.0.0.1', port: 0, cert: listener.cert, key: listener.key, clientCa: pspCa.cert, fingerprints: [strangerClient.fingerprint256] }, pino({ level: 'silent' }));
    try {
      const answer = await fake.notify(`https://127.0.0.1:${pinned.port}/hook/pix`, [{ endToEndId: `E${'1'.repeat(31)}`, txid: 'a'.repeat(32), valor: '1.00', horario: new Date().toISOString() }], { client: pspWebhookClient, ca: listenerCa });
      expect(answer.status).toBe(403);
      expect(answer.body.errors).toEqual([{ code: '00.03.0006', description: 'The client certificate is not one this listener accepts.' }]);
    } finally {
      await pinned.close();
      await fake.stop();
    }
  });

  it('colibri doctor checks the certificate files, the token endpoint and the API', async () => {
    const fake = await newFake();
    const run = async (env: Record<string, string>) => {
      const lines: string[] = [];
      const ok = await runDoctor(loadConfig({ COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, COLIBRI_DATA_DIR: '/tmp/colibri-pix-doctor', COLIBRI_LIVE_METHODS: 'PIX', ...env }), (line) => lines.push(line));
      return { ok, text: lines.join('\n') };
    };
    try {
      const good = await run({ ...fake.env(colibriClientFiles), ...listenerFiles });
      expect(good.text, good.text).toContain('PIX        → pix');
      expect(good.text).toMatch(/ok {3}pix: COLIBRI_PIX_CERT readable/);
      expect(good.text).toMatch(/ok {3}pix: token endpoint reachable: https:\/\/127\.0\.0\.1:\d+\/oauth\/token issued a token over mutual TLS/);
      expect(good.text).toMatch(/ok {3}pix: API Pix reachable/);
      expect(good.text).toMatch(/ok {3}pix: webhook listener certificate/);
      expect(good.text).not.toContain(fake.clientSecret);
      expect(good.ok).toBe(true);
      const bad = await run({ ...fake.env(colibriClientFiles), COLIBRI_PIX_CLIENT_SECRET: 'wrong', COLIBRI_PIX_CERT: '/nonexistent/client.crt' });
      expect(bad.ok).toBe(false);
      expect(bad.text).toContain('FAIL pix: COLIBRI_PIX_CERT readable: /nonexistent/client.crt');
      expect(bad.text).toContain('FAIL pix: settings: COLIBRI_PIX_CERT: cannot read /nonexistent/client.crt (ENOENT)');
      const refused = await run({ ...fake.env(colibriClientFiles), COLIBRI_PIX_CLIENT_SECRET: 'wrong' });
      expect(refused.text).toMatch(/FAIL pix: token endpoint reachable: .* refused: HTTP 401/);
    } finally {
      await fake.stop();
    }
  });

  it('prints its translation tables in docs/connectors.md as they are in the code', () => {
    const doc = readFileSync(new URL('../../../docs/connectors.md', import.meta.url), 'utf8');
    for (const [status, state] of Object.entries(COB_STATUSES)) expect(doc).toMatch(new RegExp(`\\| \`${status}\` \\| ${state} \\|`));
    for (const [status, mapped] of Object.entries(DEVOLUCAO_STATUSES)) expect(doc).toMatch(new RegExp(`\\| \`${status}\` \\| [^\\n]*${mapped}`));
    for (const [type, code] of Object.entries(PROBLEM_TYPES)) expect(doc).toMatch(new RegExp(`\\| \`${type}\` \\| [^\\n]*\`${code}\` \\|`));
    expect(translateProblem(400, 'PixDevolucaoInvalida', 'over')).toMatchObject({ status: 'DECLINED', code: 'REFUND_REJECTED' });
    expect(translateProblem(403, 'Novo', '')).toMatchObject({ status: 'ERROR', code: 'CONNECTOR_AUTH' });
  });
});

function settingsOf(fake: PixPspFake, files: { cert: string; key: string; ca: string }): Record<string, string> {
  const env = fake.env(files);
  const keys: Record<string, string> = { COLIBRI_PIX_API_URL: 'api_url', COLIBRI_PIX_TOKEN_URL: 'token_url', COLIBRI_PIX_CLIENT_ID: 'client_id', COLIBRI_PIX_CLIENT_SECRET: 'client_secret', COLIBRI_PIX_CERT: 'cert', COLIBRI_PIX_KEY: 'key', COLIBRI_PIX_CA: 'ca', COLIBRI_PIX_RECEIVER_KEY: 'receiver_key', COLIBRI_PIX_TIMEOUT_MS: 'timeout_ms' };
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [keys[name]!, value]));
}
