import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { ERRORS } from '../src/http/errors';
import { customerWithCard, paymentBody } from './fixtures';
import { generate } from './checkout-fixtures';
import { describeEachEngine, ERROR_TIMESTAMP, startTestService, ENGINES, type ApiResponse } from './harness';

/** Hostile input (issue 16.1): depth, NUL and lone surrogates, sizes, and every framework error in the standard body. */

const JSON_TYPE = { 'content-type': 'application/json' };

/** Asserts the standard error body with the given status and first code. */
function expectStandardError(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text.slice(0, 300)).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/json');
  expect(response.body.timestamp).toMatch(ERROR_TIMESTAMP);
  expect(response.body.status).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
}

/** Sends a request with a path exactly as given (fetch would normalise it). */
function rawRequest(baseUrl: string, method: string, path: string): Promise<ApiResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, text, headers, body: text.startsWith('{') ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describeEachEngine('hostile input', (service) => {
  it('refuses bodies nested thousands deep with 400 and no stack overflow, even on the unauthenticated /auth', async () => {
    const m = await service().merchant();
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    // /auth takes 8 KB at most, so 3,000 levels are what fits there.
    const auth = await service().post('/auth', undefined, { raw: `{"apiKey":"k","apiSecret":"s","x":${nested(3_000)}}`, headers: JSON_TYPE });
    expectStandardError(auth, 400, ERRORS.BODY_TOO_DEEP.code);
    expect(auth.body.errors[0].description).toMatch(/^x(\[0\])+: nests deeper than 32 levels\.$/);
    const payment = await service().post('/checkout/sendPayment', undefined, { token: m.token, raw: `{"extra_data":${nested(8_000)}}`, headers: JSON_TYPE });
    expectStandardError(payment, 400, ERRORS.BODY_TOO_DEEP.code);
    // The payout route takes up to 1 MB: 100,000 levels.
    const payouts = await service().post('/payoutTransaction', undefined, { token: m.token, raw: `{"payoutTransactions":${nested(100_000)}}`, headers: JSON_TYPE });
    expectStandardError(payouts, 400, ERRORS.BODY_TOO_DEEP.code);
    // The service still answers normally afterwards.
    expect((await service().post('/auth', { apiKey: m.api_key, apiSecret: m.api_secret })).status).toBe(200);
  });

  it('refuses deep extra_data on sendPayment before anything is stored', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 40; i += 1) deep = { d: deep };
    const response = await service().post('/checkout/sendPayment', paymentBody(m, ids, { extra_data: deep }), { token: m.token });
    expectStandardError(response, 400, ERRORS.BODY_TOO_DEEP.code);
    const stored = await service().ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', m.merchant_id).execute();
    expect(stored).toHaveLength(0);
  });

  it('refuses a lone surrogate and a NUL with a field error naming the field, and accepts a real emoji', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const base = JSON.stringify(paymentBody(m, ids)).slice(0, -1);
    const lone = await service().post('/checkout/sendPayment', undefined, { token: m.token, headers: JSON_TYPE, raw: `${base},"extra_data":{"note":"a\\ud800b"}}` });
    expectStandardError(lone, 400, ERRORS.FIELD_LONE_SURROGATE.code);
    expect(lone.body.errors[0].description).toMatch(/^extra_data\.note: /);
    const low = await service().post('/checkout/sendPayment', undefined, { token: m.token, headers: JSON_TYPE, raw: `${base},"extra_data":["\\udc00"]}` });
    expectStandardError(low, 400, ERRORS.FIELD_LONE_SURROGATE.code);
    const nul = await service().post('/checkout/sendPayment', undefined, { token: m.token, headers: JSON_TYPE, raw: `${base},"extra_data":{"note":"a\\u0000b"}}` });
    expectStandardError(nul, 400, ERRORS.FIELD_NUL_CHARACTER.code);
    const inKey = await service().post('/checkout/person', undefined, { token: m.token, headers: JSON_TYPE, raw: '{"name\\ud800":"x"}' });
    expectStandardError(inKey, 400, ERRORS.FIELD_LONE_SURROGATE.code);
    const inQuery = await service().get('/subscriptions?page=%00', { token: m.token });
    expectStandardError(inQuery, 400, ERRORS.FIELD_NUL_CHARACTER.code);
    // In a path parameter too (found by the fuzz test: the database refused it, a 500).
    const inPath = await service().get('/checkout/card-encryption-key/a%00b');
    expectStandardError(inPath, 400, ERRORS.FIELD_NUL_CHARACTER.code);
    // A surrogate pair (an emoji) is valid Unicode and round-trips through the database.
    const emoji = await service().post('/checkout/sendPayment', paymentBody(m, ids, { extra_data: { note: 'ok \ud83d\ude00' } }), { token: m.token });
    expect(emoji.status, JSON.stringify(emoji.body)).toBe(200);
    const row = await service().ctx.db.selectFrom('payments').select('extra_data').where('payment_token', '=', emoji.body.payment_token).executeTakeFirstOrThrow();
    expect(row.extra_data).toEqual({ note: 'ok \ud83d\ude00' });
  });

  it('bounds extra_data to 16 KB with a field error, and the ordinary route body to 64 KB', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const fits = await service().post('/checkout/sendPayment', paymentBody(m, ids, { extra_data: { blob: 'x'.repeat(16_000) } }), { token: m.token });
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    const tooLarge = await service().post('/checkout/sendPayment', paymentBody(m, ids, { extra_data: { blob: 'x'.repeat(17_000) } }), { token: m.token });
    expectStandardError(tooLarge, 400, ERRORS.FIELD_TOO_LARGE.code);
    expect(tooLarge.body.errors[0].description).toBe('extra_data: must be at most 16384 bytes written as JSON.');
    const huge = await service().post('/checkout/sendPayment', paymentBody(m, ids, { extra_data: { blob: 'x'.repeat(900_000) } }), { token: m.token });
    expectStandardError(huge, 413, ERRORS.PAYLOAD_TOO_LARGE.code);
    const payments = await service().ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', m.merchant_id).execute();
    expect(payments).toHaveLength(1);
    // A payout batch may be larger than 64 KB: it reaches its own validation (which names the items).
    const items = Array.from({ length: 200 }, (_, i) => ({ reference_id: `r${i}`, padding: 'p'.repeat(400) }));
    const batch = await service().post('/payoutTransaction', { payoutTransactions: items }, { token: m.token });
    expect(batch.status).toBe(400);
    expect(batch.body.errors[0].code).toMatch(/^02\./);
  });

  it('answers framework errors in the standard body: bad URL, long parameter, unknown path, 405, 413, 415', async () => {
    const m = await service().merchant();
    expectStandardError(await rawRequest(service().baseUrl, 'GET', '/pay/%E0%A4%A'), 400, ERRORS.URL_INVALID.code);
    expectStandardError(await rawRequest(service().baseUrl, 'GET', `/pay/${'a'.repeat(500)}/status`), 414, ERRORS.URL_PARAMETER_TOO_LONG.code);
    expectStandardError(await service().get('/pay/not-a-checkout'), 404, ERRORS.NOT_FOUND.code);
    expectStandardError(await service().get('/pay/not-a-checkout/status'), 404, ERRORS.NOT_FOUND.code);
    expectStandardError(await service().get('/pay/00000000-0000-4000-8000-000000000000'), 404, ERRORS.NOT_FOUND.code);
    expectStandardError(await service().get('/no/such/path'), 404, ERRORS.ROUTE_NOT_FOUND.code);
    const wrongMethod = await service().request('DELETE', '/checkout/generate', undefined, { token: m.token });
    expectStandardError(wrongMethod, 405, ERRORS.METHOD_NOT_ALLOWED.code);
    // GET /checkout/<checkout_id> matches this path too.
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, POST');
    const postOnly = await service().request('GET', '/checkout/sendPayment/x', undefined, { token: m.token });
    expectStandardError(postOnly, 404, ERRORS.ROUTE_NOT_FOUND.code);
    const getOnly = await service().request('PUT', '/pay/abc/status');
    expectStandardError(getOnly, 405, ERRORS.METHOD_NOT_ALLOWED.code);
    expect(getOnly.headers.get('allow')).toBe('GET, HEAD');
    expectStandardError(await service().post('/checkout/person', { name: 'x'.repeat(70_000) }, { token: m.token }), 413, ERRORS.PAYLOAD_TOO_LARGE.code);
    expectStandardError(await service().post('/checkout/person', undefined, { token: m.token, raw: '<x/>', headers: { 'content-type': 'application/xml' } }), 415, ERRORS.UNSUPPORTED_MEDIA_TYPE.code);
  });

  it('answers the hosted card form beyond its limit with 429, Retry-After and the standard body', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m, { method: 'CREDITCARD' });
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 40 && !limited; i += 1) {
      // An invalid body: each request counts against the limit without paying anything.
      const response = await service().post(`/pay/${created.checkout_id}/card`, { number: 'x' });
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(400);
    }
    expect(limited, 'no 429 within 40 requests').toBeDefined();
    expectStandardError(limited as ApiResponse, 429, ERRORS.RATE_LIMITED.code);
    expect(Number((limited as ApiResponse).headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('sends nosniff and Referrer-Policy on every answer, public pages, polls and errors alike, and no HSTS over plain http', async () => {
    const m = await service().merchant();
    const created = await generate(service(), m);
    for (const response of [
      await service().get(`/pay/${created.checkout_id}/status`),
      await service().get(`/pay/${created.checkout_id}`),
      await service().get('/no/such/path'),
      await service().get('/openapi.json'),
      await rawRequest(service().baseUrl, 'GET', '/pay/%E0%A4%A'),
    ]) {
      expect(response.headers.get('x-content-type-options'), response.text.slice(0, 100)).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security')).toBeNull();
    }
  });
});

it('sends HSTS on every answer when PUBLIC_BASE_URL is https', async () => {
  const service = await startTestService(ENGINES[0] ?? 'pglite', { env: { PUBLIC_BASE_URL: 'https://pay.example.com' } });
  try {
    for (const path of ['/healthz', '/no/such/path', '/pay/abc/status']) {
      const response = await service.get(path);
      expect(response.headers.get('strict-transport-security'), path).toBe('max-age=31536000');
    }
  } finally {
    await service.close();
  }
});
