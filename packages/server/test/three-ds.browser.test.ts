import { mkdirSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine, ENGINES, startTestService, type TestMerchant, type TestService } from './harness';
import { customerWithCard, settled, VALID_CPF, waitForStatus } from './fixtures';
import { formatAmount } from '../src/lib/money';

/**
 * The 3DS library end to end. The API suite (both engines) drives the library's endpoints and
 * `POST /checkout/3ds/payment` over HTTP; the browser suite loads client-v1.0.min.js into Debian's
 * Chromium from a merchant page on another origin and walks every outcome of the contract's test
 * cards. A missing Chromium fails the suite: it is installed by .ci/run.
 */

const CARDS = {
  frictionless: '4000000000002701',
  challenge: '4000000000002503',
  unenrolled: '4000000000002420',
  notAllowed: '4000000000002370',
  error: '4000000000002644',
  approved: '5555555555554444',
} as const;

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/3ds/', import.meta.url));

/** A request the library accepts; `card` picks the outcome. */
function authRequest(card: string, overrides: Record<string, unknown> = {}) {
  return {
    notificationUrl: 'https://shop.example/callbacks/3ds',
    referenceId: `order-${Math.random().toString(36).slice(2, 10)}`,
    customer: { id: VALID_CPF, name: 'Maria Silva', email: 'maria@example.com', phones: [{ country: 55, area: 11, number: 987654321, type: 'MOBILE' }] },
    paymentMethod: {
      type: 'CREDIT_CARD',
      installments: 1,
      card: { number: card, expMonth: '12', expYear: '2035', cvv: '123', holder: { name: 'MARIA SILVA' } },
    },
    amount: { value: 15050, currency: 'BRL' },
    billingAddress: { street: 'Avenida Paulista', number: '1000', regionCode: 'SP', country: 'BRA', city: 'São Paulo', postalCode: '01310100' },
    ...overrides,
  };
}

async function authenticate(service: TestService, merchant: TestMerchant, card: string, origin = 'http://shop.localhost:3000') {
  return service.post('/3ds/authentications', { contractId: merchant.contract_id, env: 'SANDBOX', ...authRequest(card) }, { headers: { origin } });
}

describeEachEngine('3DS API', (service) => {
  it('serves the library publicly as cacheable JavaScript', async () => {
    const script = await service().get('/scripts/client-v1.0.min.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(script.text).toContain('Colibri');
    expect(script.text.length).toBeLessThan(20_000);
    const again = await service().request('GET', '/scripts/client-v1.0.min.js', undefined, { headers: { 'if-none-match': script.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
  });

  it('allows any origin without credentials on the library endpoint, and forbids framing elsewhere', async () => {
    const preflight = await service().request('OPTIONS', '/3ds/authentications', undefined, {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const refused = await service().post('/3ds/authentications', { contractId: 'CT-nope', env: 'SANDBOX', ...authRequest(CARDS.frictionless) }, { headers: { origin: 'https://shop.example' } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.body.errors).toEqual([{ code: '06.01.0001', description: 'contractId: is not the contract id of any merchant.' }]);
    // Merchant endpoints are not opened to browsers.
    const me = await service().request('OPTIONS', '/checkout/3ds/payment', undefined, { headers: { origin: 'https://shop.example' } });
    expect(me.headers.get('access-control-allow-origin')).toBeNull();
    const health = await service().get('/healthz');
    expect(health.headers.get('x-frame-options')).toBe('DENY');
    expect(health.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
  });

  it('checks the request with the library rules on the server too', async () => {
    const m = await service().merchant();
    const bad = authRequest('4000000000002702', { billingAddress: undefined, amount: { value: 10.5, currency: 'USD' } });
    const response = await service().post('/3ds/authentications', { contractId: m.contract_id, env: 'SANDBOX', ...bad });
    expect(response.status).toBe(400);
    const codes = response.body.errors.map((e: { code: string; description: string }) => `${e.code} ${e.description.split(':')[0]}`);
    expect(codes).toEqual(expect.arrayContaining(['00.01.0002 amount.value']));
    const semantic = await service().post('/3ds/authentications', {
      contractId: m.contract_id,
      env: 'SANDBOX',
      ...authRequest('4000000000002702', { billingAddress: undefined, amount: { value: 1000, currency: 'USD' } }),
    });
    expect(semantic.body.errors.map((e: { code: string; description: string }) => `${e.code} ${e.description.split(':')[0]}`)).toEqual([
      '06.01.0002 paymentMethod.card.number',
      '06.01.0002 amount.currency',
      '06.01.0002 billingAddress',
    ]);
  });

  it('pays a frictionless authentication once, like sendPayment, with the 3DS data attached', async () => {
    const m = await service().merchant();
    const auth = await authenticate(service(), m, CARDS.frictionless);
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    expect(auth.headers.get('access-control-allow-origin')).toBe('*');
    expect(auth.body).toEqual({ id: expect.any(String), status: 'SUCCESS', paymentToken: expect.any(String) });
    const paid = await service().post('/checkout/3ds/payment', await payBody(service(), auth.body), { token: m.token });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(Object.keys(paid.body).sort()).toEqual(
      ['customer_fees', 'payment_token', 'public_card_id', 'public_card_status', 'public_person_id', 'refresh_token', 'totals', 'transaction_status'].sort(),
    );
    expect(paid.body).toMatchObject({
      payment_token: auth.body.paymentToken,
      transaction_status: 'PROCESSING',
      public_card_status: 'ACTIVE',
      totals: { amount: 150.5, asset: 'BRL', original_amount: 150.5, original_asset: 'BRL' },
    });
    const details = await waitForStatus(service(), m, paid.body.payment_token, settled);
    expect(details.general_info.transaction_status).toBe('PAID');
    expect(details.payment_info.card_number).toBe('400000******2701');
    const row = await service().ctx.db.selectFrom('payments').select('authentication').where('payment_token', '=', paid.body.payment_token).executeTakeFirstOrThrow();
    expect(row.authentication).toEqual({ eci: '05', version: '2.2.0', dstrans_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const stored = await service().ctx.db.selectFrom('three_ds_authentications').selectAll().where('id', '=', auth.body.id).executeTakeFirstOrThrow();
    expect(stored.status).toBe('USED');
    expect(stored.cavv_ciphertext).toBeNull();
    expect(JSON.stringify(stored, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(CARDS.frictionless);

    const again = await service().post('/checkout/3ds/payment', await payBody(service(), auth.body), { token: m.token });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('06.03.0005');
  });

  it('refuses a foreign id, a wrong token, an unfinished and a failed authentication with their codes', async () => {
    const m = await service().merchant();
    const other = await service().merchant('Other shop');
    const ok = await authenticate(service(), m, CARDS.approved);
    const pay = (body: unknown, token = m.token) => service().post('/checkout/3ds/payment', body, { token });

    const foreign = await pay(await payBody(service(), ok.body), other.token);
    expect([foreign.status, foreign.body.errors[0].code]).toEqual([404, '06.03.0001']);
    const mismatch = await pay({ ...(await payBody(service(), ok.body)), paymentToken: '00000000-0000-4000-8000-000000000000' });
    expect([mismatch.status, mismatch.body.errors[0].code]).toEqual([400, '06.03.0002']);
    const malformed = await pay({ id: 'not-an-id', paymentToken: 'x', amount: '150.50', reference_id: 'order-1' });
    expect([malformed.status, malformed.body.errors[0].code]).toEqual([404, '06.03.0001']);

    const challenge = await authenticate(service(), m, CARDS.challenge);
    expect(challenge.body).toEqual({ id: expect.any(String), status: 'CHALLENGE', challengeUrl: `/3ds/challenges/${challenge.body.id}` });
    const pending = await pay(await payBody(service(), { id: challenge.body.id, paymentToken: (await tokenOf(service(), challenge.body.id)) ?? '' }));
    expect([pending.status, pending.body.errors[0].code]).toEqual([422, '06.03.0003']);

    for (const [card, status] of [
      [CARDS.unenrolled, 'UNENROLLED'],
      [CARDS.notAllowed, 'FAILURE'],
      [CARDS.error, 'ERROR'],
    ] as const) {
      const failed = await authenticate(service(), m, card);
      expect(failed.body.status).toBe(status);
      const refused = await pay(await payBody(service(), { id: failed.body.id, paymentToken: (await tokenOf(service(), failed.body.id)) ?? '' }));
      expect([refused.status, refused.body.errors[0].code]).toEqual([422, '06.03.0004']);
    }
    // Cards that cannot authenticate are not kept in the vault.
    const cards = await service().ctx.db.selectFrom('cards').select('last4').where('merchant_id', '=', m.merchant_id).execute();
    expect(cards.map((c) => c.last4).sort()).toEqual(['2503', '4444']);
  });

  it('serves a challenge page framable only by the merchant origin, and takes one answer', async () => {
    const m = await service().merchant();
    const challenge = await authenticate(service(), m, CARDS.challenge, 'http://shop.localhost:3000');
    const page = await service().get(challenge.body.challengeUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors http://shop.localhost:3000');
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.text).toContain('400000******2503');
    const answer = await service().post(challenge.body.challengeUrl, { code: '123456' });
    expect(answer.body).toEqual({ id: challenge.body.id, status: 'SUCCESS', paymentToken: expect.any(String) });
    const twice = await service().post(challenge.body.challengeUrl, { code: '123456' });
    expect([twice.status, twice.body.errors[0].code]).toEqual([409, '06.02.0002']);
    const paid = await service().post('/checkout/3ds/payment', await payBody(service(), answer.body), { token: m.token });
    expect(paid.status).toBe(200);
    const unknown = await service().get('/3ds/challenges/00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.errors[0].code]).toEqual([404, '06.02.0001']);
  });

  it("pays only the merchant's own amount and reference: a mismatch is a 400 and leaves the authentication usable", async () => {
    const m = await service().merchant();
    const auth = await authenticate(service(), m, CARDS.frictionless);
    const body = await payBody(service(), auth.body);
    const pay = (override: Record<string, unknown>) => service().post('/checkout/3ds/payment', { ...body, ...override }, { token: m.token });
    // The browser authenticated 150.50; a page tampered to send 1.00 does not change what is charged.
    const cheaper = await pay({ amount: '1.00' });
    expect([cheaper.status, cheaper.body.errors[0].code]).toEqual([400, '06.03.0007']);
    const otherOrder = await pay({ reference_id: 'another-order' });
    expect([otherOrder.status, otherOrder.body.errors[0].code]).toEqual([400, '06.03.0008']);
    const garbled = await pay({ amount: '150,50' });
    expect([garbled.status, garbled.body.errors[0].code]).toEqual([400, '00.01.0003']);
    const missing = await service().post('/checkout/3ds/payment', { id: body.id, paymentToken: body.paymentToken }, { token: m.token });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { description: string }) => e.description.split(':')[0]).sort()).toEqual(['amount', 'reference_id']);
    const paid = await pay({ amount: '150.5' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.totals.amount).toBe(150.5);
  });

  it('expires an authentication an hour after it succeeded', async () => {
    const m = await service().merchant();
    const auth = await authenticate(service(), m, CARDS.frictionless);
    const body = await payBody(service(), auth.body);
    expect((await service().post('/sandbox/clock/advance', { seconds: 3601 }, { token: m.token })).status).toBe(200);
    const late = await service().post('/checkout/3ds/payment', body, { token: m.token });
    expect([late.status, late.body.errors[0].code]).toEqual([422, '06.03.0006']);
  });

  it('answers a card whose verification fails exactly like a good card, and refuses its payment to the merchant only', async () => {
    const m = await service().merchant();
    const good = await authenticate(service(), m, CARDS.approved);
    const wrongCvv = await authenticate(service(), m, '4000000000000127');
    expect(wrongCvv.status).toBe(good.status);
    expect(Object.keys(wrongCvv.body).sort()).toEqual(Object.keys(good.body).sort());
    expect(wrongCvv.body).toEqual({ id: expect.any(String), status: 'SUCCESS', paymentToken: expect.any(String) });
    const refused = await service().post('/checkout/3ds/payment', await payBody(service(), wrongCvv.body), { token: m.token });
    expect([refused.status, refused.body.errors[0].code]).toEqual([422, '06.03.0009']);
    const cards = await service().ctx.db.selectFrom('cards').select('last4').where('merchant_id', '=', m.merchant_id).execute();
    expect(cards.map((c) => c.last4)).toEqual(['4444']);
  });

  it("verifies a DEBITCARD sendPayment's 3DS data against the authentication that issued it", async () => {
    const m = await service().merchant();
    const other = await service().merchant('Other shop');
    const auth = await service().post(
      '/3ds/authentications',
      { contractId: m.contract_id, env: 'SANDBOX', ...authRequest(CARDS.frictionless, { paymentMethod: { type: 'DEBIT_CARD', card: { number: CARDS.frictionless, expMonth: '12', expYear: '2035', cvv: '123', holder: { name: 'MARIA SILVA' } } } }) },
    );
    expect(auth.body.status).toBe('SUCCESS');
    const row = await service().ctx.db.selectFrom('three_ds_authentications').selectAll().where('id', '=', auth.body.id).executeTakeFirstOrThrow();
    // The data Colibri's 3DS server issued, as a merchant would receive it from a 3DS integration.
    const issued = { cavv: service().ctx.secretBox.decrypt(row.cavv_key_id ?? '', row.cavv_ciphertext ?? ''), eci: row.eci ?? '', version: row.version ?? '', dstrans_id: row.dstrans_id ?? '' };
    const body = (overrides: Record<string, unknown> = {}) => ({
      contract_id: m.contract_id,
      reference_id: 'debit-1',
      public_person_id: row.person_id,
      public_card_id: row.card_id,
      payment: { amount: '150.50', method: 'DEBITCARD', asset: 'BRL', installments: 1 },
      authentication: issued,
      ...overrides,
    });
    const send = (b: unknown, token = m.token) => service().post('/checkout/sendPayment', b, { token });
    const refusal = async (b: unknown, field: string, token = m.token) => {
      const response = await send(b, token);
      expect(response.status, JSON.stringify(b)).toBe(400);
      expect(response.body.errors).toEqual([{ code: '00.04.0014', description: expect.stringMatching(new RegExp(`^authentication\\.${field}: `)) }]);
    };
    await refusal(body({ authentication: { ...issued, dstrans_id: '2f1e8a52-5d3a-4c8e-9f51-0a7b3c9d1e22' } }), 'dstrans_id');
    await refusal(body({ authentication: { ...issued, cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=' } }), 'cavv');
    await refusal(body({ authentication: { ...issued, eci: '07' } }), 'eci');
    await refusal(body({ payment: { amount: '1.00', method: 'DEBITCARD', asset: 'BRL', installments: 1 } }), 'dstrans_id');
    const otherCard = await customerWithCard(service(), m);
    await refusal(body({ public_person_id: otherCard.personId, public_card_id: otherCard.cardId }), 'dstrans_id');
    const otherIds = await customerWithCard(service(), other);
    await refusal(body({ contract_id: other.contract_id, public_person_id: otherIds.personId, public_card_id: otherIds.cardId }), 'dstrans_id', other.token);

    const paid = await send(body());
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const details = await waitForStatus(service(), m, paid.body.payment_token, settled);
    expect(details.general_info.transaction_status).toBe('PAID');
    await refusal(body({ reference_id: 'debit-2' }), 'dstrans_id');
    const used = await service().ctx.db.selectFrom('three_ds_authentications').select(['status', 'cavv_ciphertext']).where('id', '=', auth.body.id).executeTakeFirstOrThrow();
    expect(used).toEqual({ status: 'USED', cavv_ciphertext: null });
  });
});

describeEachEngine(
  '3DS authentication limits',
  (service) => {
    it('limits authentications per address and per contract, with 429 and Retry-After', async () => {
      const m = await service().merchant();
      const from = (address: string) => postFrom(service().baseUrl, '/3ds/authentications', { contractId: m.contract_id, env: 'SANDBOX', ...authRequest(CARDS.unenrolled) }, address);
      const first = [await from('127.0.70.1'), await from('127.0.70.1'), await from('127.0.70.1')];
      expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
      const limited = await from('127.0.70.1');
      expect(limited.status).toBe(429);
      expect(limited.body.errors).toEqual([{ code: '06.01.0005', description: expect.any(String) }]);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      // Another address may call, until the contract's own limit (5) is spent.
      expect((await from('127.0.70.2')).status).toBe(200);
      expect((await from('127.0.70.3')).status).toBe(200);
      expect((await from('127.0.70.4')).status).toBe(429);
      const other = await service().merchant('Other shop');
      const otherContract = await postFrom(service().baseUrl, '/3ds/authentications', { contractId: other.contract_id, env: 'SANDBOX', ...authRequest(CARDS.unenrolled) }, '127.0.70.5');
      expect(otherContract.status).toBe(200);
    });
  },
  { env: { COLIBRI_3DS_LIMIT_PER_ADDRESS: '3', COLIBRI_3DS_LIMIT_PER_CONTRACT: '5' } },
);

/** A JSON POST from a given loopback address, so limits see distinct client addresses over real sockets. */
function postFrom(baseUrl: string, path: string, body: unknown, localAddress: string): Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The body of `POST /checkout/3ds/payment`: the library's id and paymentToken with the merchant's own
 * order (amount and reference), which the merchant's server knows; here it is read from the
 * authentication the test started, and the tests that send another order say so.
 */
async function payBody(service: TestService, result: { id: string; paymentToken: string }) {
  const row = await service.ctx.db.selectFrom('three_ds_authentications').select(['amount_minor', 'reference_id']).where('id', '=', result.id).executeTakeFirst();
  return { id: result.id, paymentToken: result.paymentToken, amount: formatAmount(row?.amount_minor ?? 0n, 2), reference_id: row?.reference_id ?? 'unknown' };
}

async function tokenOf(service: TestService, id: string): Promise<string | undefined> {
  const row = await service.ctx.db.selectFrom('three_ds_authentications').select('payment_token').where('id', '=', id).executeTakeFirst();
  return row?.payment_token;
}

/** A merchant's checkout page on its own origin, loading the library from the Colibri service. */
function merchantPage(colibriUrl: string, contractId: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop checkout</title>
<script src="${colibriUrl}/scripts/client-v1.0.min.js"></script>
</head><body><h1>Shop checkout</h1><pre id="log"></pre>
<script>
  Colibri.setUp({ env: 'SANDBOX', contractId: ${JSON.stringify(contractId)} });
  window.pay = function (request) {
    var events = [];
    var note = function (name) { return function (data) { events.push({ name: name, data: data === undefined ? null : data }); }; };
    return Colibri.authenticate3DS(request, {
      onSuccess: note('onSuccess'), onUnenrolled: note('onUnenrolled'), onFailure: note('onFailure'), onError: note('onError')
    }).then(function (result) {
      document.getElementById('log').textContent = JSON.stringify({ result: result, events: events }, null, 2);
      return { result: result, events: events };
    });
  };
</script></body></html>`;
}

// Each engine gets its own browser run: the walk takes a few seconds, well within the file's budget.
for (const engine of ENGINES) {
  describe(`3DS library in Chromium [${engine}]`, () => {
    let service: TestService;
    let merchant: TestMerchant;
    let shop: Server;
    let shopUrl: string;
    let browser: Browser;
    let page: Page;
    const colibriRequests: string[] = [];

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      service = await startTestService(engine);
      merchant = await service.merchant('Loja Exemplo');
      shop = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(merchantPage(service.baseUrl, merchant.contract_id));
      });
      await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
      // "localhost" and "127.0.0.1" are different origins: the page is cross-origin to Colibri.
      shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}`;
      browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      });
      page = await browser.newPage();
      page.on('request', (request) => {
        if (request.url().startsWith(service.baseUrl)) colibriRequests.push(`${request.method()} ${new URL(request.url()).pathname}`);
      });
      await page.goto(`${shopUrl}/checkout`);
      await page.waitForFunction(() => typeof (window as unknown as { Colibri?: unknown }).Colibri === 'object');
    });

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => shop?.close(resolve));
      await service?.close();
    });

    const pay = (request: unknown) => page.evaluate((r) => (window as any).pay(r), request) as Promise<{ result: any; events: { name: string; data: any }[] }>;
    const shot = (name: string) => page.screenshot({ path: `${ARTIFACTS}${engine}-${name}.png` });

    async function settlesPaid(result: { id: string; paymentToken: string }) {
      const paid = await service.post('/checkout/3ds/payment', await payBody(service, result), { token: merchant.token });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.body.payment_token).toBe(result.paymentToken);
      const details = await waitForStatus(service, merchant, paid.body.payment_token, settled);
      expect(details.general_info.transaction_status).toBe('PAID');
    }

    it('loads the library cross-origin and authenticates frictionless; the payment settles PAID and pays once', async () => {
      expect(new URL(shopUrl).origin).not.toBe(new URL(service.baseUrl).origin);
      const { result, events } = await pay(authRequest(CARDS.frictionless));
      await shot('frictionless');
      expect(result).toEqual({ status: 'SUCCESS', id: expect.any(String), paymentToken: expect.any(String) });
      expect(events).toEqual([{ name: 'onSuccess', data: { id: result.id, paymentToken: result.paymentToken } }]);
      await settlesPaid(result);
      const again = await service.post('/checkout/3ds/payment', await payBody(service, result), { token: merchant.token });
      expect([again.status, again.body.errors[0].code]).toEqual([409, '06.03.0005']);
    });

    it('passes a challenge answered 123456 in the overlay', async () => {
      const outcome = pay(authRequest(CARDS.challenge));
      const frame = page.frameLocator('iframe[name="colibri-3ds-challenge"]');
      await frame.locator('#code').waitFor();
      await frame.locator('#code').fill('123456');
      await shot('challenge');
      await frame.locator('button[type="submit"]').click();
      const { result, events } = await outcome;
      await shot('challenge-passed');
      expect(result.status).toBe('SUCCESS');
      expect(events.map((e) => e.name)).toEqual(['onSuccess']);
      expect(await page.locator('[data-colibri-3ds="overlay"]').count()).toBe(0);
      await settlesPaid(result);
    });

    it('reports a failed challenge as onUnenrolled, and the authentication cannot pay', async () => {
      const outcome = pay(authRequest(CARDS.challenge));
      const frame = page.frameLocator('iframe[name="colibri-3ds-challenge"]');
      await frame.locator('#code').fill('000000');
      await frame.locator('button[type="submit"]').click();
      const { result, events } = await outcome;
      await shot('challenge-failed');
      expect(result).toEqual({ status: 'UNENROLLED', id: expect.any(String) });
      expect(events).toEqual([{ name: 'onUnenrolled', data: null }]);
      const refused = await service.post('/checkout/3ds/payment', await payBody(service, { id: result.id, paymentToken: (await tokenOf(service, result.id)) ?? '' }), { token: merchant.token });
      expect([refused.status, refused.body.errors[0].code]).toEqual([422, '06.03.0004']);
    });

    it('calls onUnenrolled, onFailure and onError for the unenrolled, not-allowed and error cards', async () => {
      for (const [card, status, event, name] of [
        [CARDS.unenrolled, 'UNENROLLED', 'onUnenrolled', 'unenrolled'],
        [CARDS.notAllowed, 'FAILURE', 'onFailure', 'not-allowed'],
        [CARDS.error, 'ERROR', 'onError', 'error'],
      ] as const) {
        const { result, events } = await pay(authRequest(card));
        await shot(name);
        expect(result.status).toBe(status);
        expect(events.map((e) => e.name)).toEqual([event]);
        if (status === 'ERROR') expect(events[0]?.data).toEqual({ code: 'AUTHENTICATION_ERROR', message: expect.any(String) });
      }
    });

    it("encrypts a card in the shopper's browser: the merchant's server relays only ciphertext to POST /checkout/card", async () => {
      const before = colibriRequests.length;
      const encrypt = (card: unknown) => page.evaluate((c) => (window as any).Colibri.encryptCard(c), card) as Promise<{ hasErrors: boolean; encryptedCard?: string; errors: { field: string; message: string }[] }>;
      const result = await encrypt({ number: '4111 1111 1111 1111', cvv: '123', expMonth: '12', expYear: '2035', holder: 'MARIA SILVA' });
      expect(result.hasErrors).toBe(false);
      const jwe = result.encryptedCard ?? '';
      expect(jwe.split('.')).toHaveLength(5);
      expect(JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString())).toMatchObject({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: expect.stringMatching(/^ce_/) });
      expect(jwe).not.toContain('4111111111111111');
      // The browser fetched the merchant's public key and sent the card nowhere.
      expect(colibriRequests.slice(before)).toEqual([`GET /checkout/card-encryption-key/${merchant.contract_id}`]);
      const again = await encrypt({ number: '5555555555554444', cvv: '321', expMonth: '07', expYear: '2031', holder: 'MARIA SILVA' });
      expect(again.hasErrors).toBe(false);
      expect(colibriRequests.slice(before)).toHaveLength(1);

      // The merchant's server: it holds only the ciphertext.
      const person = await service.post('/checkout/person', { name: 'Maria Silva', email: 'maria@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' }, { token: merchant.token });
      for (const [encrypted, masked] of [
        [jwe, '411111******1111'],
        [again.encryptedCard ?? '', '555555******4444'],
      ] as const) {
        const card = await service.post('/checkout/card', { public_person_id: person.body.public_person_id, encrypted_card: encrypted }, { token: merchant.token });
        expect(card.status, JSON.stringify(card.body)).toBe(200);
        expect(card.body).toMatchObject({ public_card_status: 'ACTIVE', masked_number: masked });
      }

      const invalid = await encrypt({ number: '4111111111111112', cvv: '12', expMonth: '13' });
      expect(invalid).toEqual({
        hasErrors: true,
        errors: [
          { field: 'number', message: expect.any(String) },
          { field: 'cvv', message: expect.any(String) },
          { field: 'expMonth', message: expect.any(String) },
        ],
      });
      await shot('encrypt-card');
    });

    it('names every failing field and sends nothing when the request breaks the rules', async () => {
      const before = colibriRequests.length;
      const rows = async () => (await service.ctx.db.selectFrom('three_ds_authentications').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n;
      const rowsBefore = await rows();
      const invalid = authRequest('4111111111111112', {
        referenceId: '',
        customer: { id: VALID_CPF, name: 'Maria Silva', email: 'maria@example.com', phones: [{ area: 1, number: 1234567 }] },
        paymentMethod: { type: 'PIX', installments: 13, card: { number: '4111 1111 1111 1111', expMonth: '13', expYear: '35', cvv: '12', holder: { name: 'M' } } },
        amount: { value: 10.5, currency: 'USD' },
        billingAddress: { partialAddress: true, number: '', country: 'BR', postalCode: '1310-100' },
      });
      const { result, events } = await pay(invalid);
      await shot('validation-error');
      expect(result.status).toBe('ERROR');
      expect(result.error.code).toBe('VALIDATION_ERROR');
      expect(result.error.fields.map((f: { field: string }) => f.field)).toEqual([
        'referenceId',
        'customer.phones[0].area',
        'customer.phones[0].number',
        'paymentMethod.type',
        'paymentMethod.installments',
        'paymentMethod.card.number',
        'paymentMethod.card.expMonth',
        'paymentMethod.card.expYear',
        'paymentMethod.card.cvv',
        'amount.value',
        'amount.currency',
        'billingAddress.number',
        'billingAddress.country',
        'billingAddress.postalCode',
      ]);
      expect(events).toEqual([{ name: 'onError', data: result.error }]);

      // Without an address at all: refused unless disableAddress is true, which then authenticates.
      const noAddress = await pay(authRequest(CARDS.approved, { billingAddress: undefined }));
      expect(noAddress.result.error.fields).toEqual([{ field: 'billingAddress', message: 'is required unless disableAddress is true.' }]);
      expect(colibriRequests.slice(before)).toEqual([]);
      expect(await rows()).toBe(rowsBefore);

      const disabled = await pay(authRequest(CARDS.approved, { billingAddress: undefined, disableAddress: true }));
      expect(disabled.result.status).toBe('SUCCESS');
      await settlesPaid(disabled.result);
    });
  });
}
