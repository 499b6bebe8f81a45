import { expect, it } from 'vitest';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { customerWithCard, settled, waitForStatus } from './fixtures';
import { authRequest, CARDS, payBody, tokenOf } from './three-ds-fixtures';
import { postFrom } from './processes';

/**
 * The 3DS API on both engines: the library's endpoints and `POST /checkout/3ds/payment` over HTTP. The
 * library itself runs in Chromium in three-ds.browser.test.ts.
 */

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
    // (Another dstrans_id is another 3DS server's data, with its own rules: three-ds-external.test.ts.)
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
