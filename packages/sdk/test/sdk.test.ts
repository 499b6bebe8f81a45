import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeEachEngine, type TestMerchant, type TestService } from '../../server/test/harness';
import { startReceiver } from '../../server/test/callback-receiver';
import { VALID_CPF } from '../../server/test/fixtures';
import { generatedFiles } from '../scripts/generated-files';
import {
  ApiError,
  AuthenticationError,
  CallbackVerificationError,
  Colibri,
  ColibriConnectionError,
  ColibriError,
  ERROR_CODES,
  IdempotencyError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  UnprocessableError,
  ValidationError,
  verifyCallback,
  type CallbackEvent,
} from '../src/index';

/** Every request the SDK sent, seen at its fetch, for checking the headers it chose. */
interface Sent {
  method: string;
  path: string;
  headers: Headers;
}

function clientFor(service: TestService, merchant: TestMerchant, wrap?: (request: Request, real: () => Promise<Response>) => Promise<Response>) {
  const sent: Sent[] = [];
  const colibri = new Colibri({
    baseUrl: service.baseUrl,
    apiKey: merchant.api_key,
    apiSecret: merchant.api_secret,
    retryBaseMs: 20,
    fetch: async (request) => {
      sent.push({ method: request.method, path: new URL(request.url).pathname, headers: new Headers(request.headers) });
      const real = () => fetch(request.clone());
      return wrap ? wrap(request, real) : real();
    },
  });
  return { colibri, sent };
}

async function customer(colibri: Colibri, number = '4111111111111111') {
  const person = await colibri.persons.create({ name: 'Maria Silva', email: 'maria@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' });
  const card = await colibri.cards.create({ public_person_id: person.public_person_id, number, exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' });
  return { public_person_id: person.public_person_id, public_card_id: card.public_card_id };
}

describeEachEngine('SDK against a running Colibri', (service) => {
  it('has generated types, codes and amount fields up to date with /openapi.json (npm run generate -w @colibri/sdk)', async () => {
    const doc = (await service().get('/openapi.json')).body;
    for (const [name, text] of Object.entries(await generatedFiles(doc))) {
      expect(readFileSync(new URL(`../src/generated/${name}`, import.meta.url), 'utf8'), `src/generated/${name} is stale: run npm run generate -w @colibri/sdk`).toBe(text);
    }
  });

  it('pays with a card: tokens from the key, refresh tokens taken, amounts of either type, an idempotency key on each POST', async () => {
    const merchant = await service().merchant();
    const { colibri, sent } = clientFor(service(), merchant);
    const ids = await customer(colibri);
    // The spec fixes sendPayment's amount as a decimal string; the caller gives a number.
    const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-1', ...ids, payment: { amount: 25.5, method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    expect(payment.transaction_status).toBe('PROCESSING');
    const details = await colibri.payments.waitForOutcome(payment.payment_token);
    expect(details.general_info.transaction_status).toBe('PAID');
    expect(details.payment_info.order_amount).toBe(25.5);
    // The default plan: 12 interest-free installments; 25.50 / 3 = 8.50.
    const installments = await colibri.payments.installments({ amount: 25.5, asset: 'BRL', card_bin: '411111' });
    expect(installments.card_scheme).toBe('VISA');
    expect(installments.options[2]).toMatchObject({ installments: 3, installment_amount: 8.5, total_amount: 25.5, interest_free: true });

    // The refund's amount is a JSON number in the spec; the caller gives a decimal string.
    const refund = await colibri.refunds.create({ payment_token: payment.payment_token, amount: '5.25' });
    expect(refund.refund_status).toMatch(/^(REQUESTED|PROCESSING|COMPLETED)$/);
    expect((await colibri.refunds.get(refund.refund_id)).amount).toBe(5.25);
    // Tokens carry their issue time in seconds: a call in a later second gets a refresh_token that differs.
    await new Promise((r) => setTimeout(r, 1100));
    await colibri.refunds.get(refund.refund_id);
    await colibri.refunds.get(refund.refund_id);

    expect(sent.filter((s) => s.path === '/auth')).toHaveLength(1);
    const posts = sent.filter((s) => s.method === 'POST' && s.path !== '/auth');
    expect(posts.length).toBeGreaterThanOrEqual(4);
    for (const post of posts) expect(post.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(posts.map((p) => p.headers.get('idempotency-key'))).size).toBe(posts.length);
    // Each answer's refresh_token is the next call's token.
    const tokens = sent.filter((s) => s.path !== '/auth').map((s) => s.headers.get('x-auth-token'));
    expect(new Set(tokens).size).toBeGreaterThan(1);
  });

  it('retries a POST whose answer was lost with the same Idempotency-Key, and the service replays it: one payment', async () => {
    const merchant = await service().merchant();
    let lose = true;
    const { colibri, sent } = clientFor(service(), merchant, async (request, real) => {
      const response = await real();
      if (new URL(request.url).pathname === '/checkout/sendPayment' && lose) {
        lose = false;
        throw new TypeError('fetch failed (the connection dropped after the request was sent)');
      }
      return response;
    });
    const ids = await customer(colibri);
    const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-retry', ...ids, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    const attempts = sent.filter((s) => s.path === '/checkout/sendPayment');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.headers.get('idempotency-key')).toBe(attempts[1]!.headers.get('idempotency-key'));
    const count = await service().ctx.db.selectFrom('payments').select((eb) => eb.fn.countAll<string>().as('n')).where('reference_id', '=', 'sdk-retry').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    expect(payment.payment_token).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('waits for Retry-After on 429 and backs off on 5xx, and gives up on a service that never answers with ColibriConnectionError', async () => {
    const merchant = await service().merchant();
    let throttled = false;
    let failed = false;
    const { colibri, sent } = clientFor(service(), merchant, async (request, real) => {
      if (new URL(request.url).pathname === '/me' && !failed) {
        failed = true;
        return new Response('{"status":503}', { status: 503, headers: { 'content-type': 'application/json' } });
      }
      if (new URL(request.url).pathname === '/me' && !throttled) {
        throttled = true;
        return new Response(JSON.stringify({ status: 429, errors: [{ code: '00.00.0006', description: 'slow down' }] }), {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
        });
      }
      return real();
    });
    const started = Date.now();
    expect((await colibri.me()).merchant_id).toBe(merchant.merchant_id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(sent.filter((s) => s.path === '/me')).toHaveLength(3);

    const down = new Colibri({ baseUrl: 'http://127.0.0.1:9', apiKey: merchant.api_key, apiSecret: merchant.api_secret, maxRetries: 1, retryBaseMs: 10 });
    await expect(down.me()).rejects.toBeInstanceOf(ColibriConnectionError);
  });

  it('throws the error class of each family, every one a ColibriError (ApiError) with status, codes and body', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const missing = await colibri.refunds.get(987654321).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(ColibriError);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ name: 'NotFoundError', status: 404 });

    // A malformed e-mail and a wrong CPF: both fields in one 400, named for the form that shows them.
    const invalid = await colibri.persons.create({ name: 'X', email: 'not-an-email', tax_id: '111.111.111-12', tax_id_type: 'CPF' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    const validation = invalid as ValidationError;
    expect(validation.status).toBe(400);
    expect(validation.fieldNames).toEqual(['email', 'tax_id']);
    expect(validation.fields.map((f) => f.code)).toEqual([ERROR_CODES.FIELD_FORMAT, ERROR_CODES.TAX_ID_INVALID]);
    expect(validation.body).toMatchObject({ status: 400, errors: validation.errors });
    for (const code of validation.codes) expect(Object.values(ERROR_CODES)).toContain(code);

    const wrongSecret = new Colibri({ baseUrl: service().baseUrl, apiKey: merchant.api_key, apiSecret: 'cs_wrong' });
    await expect(wrongSecret.me()).rejects.toMatchObject({ name: 'AuthenticationError', status: 401 });
    await expect(wrongSecret.me()).rejects.toBeInstanceOf(AuthenticationError);

    // 422: a rule of the operation refuses it (only a pre-authorisation can be captured).
    const ids = await customer(colibri);
    const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-families', ...ids, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    await colibri.payments.waitForOutcome(payment.payment_token);
    const capture = await colibri.payments.capture(payment.payment_token, 10).catch((e: unknown) => e);
    expect(capture).toBeInstanceOf(UnprocessableError);
    expect((capture as UnprocessableError).codes).toEqual([ERROR_CODES.NOT_PRE_AUTHORIZED]);

    // 429 and 503 that outlast the retries (the answers stand in for a busy service).
    const answer = (status: number, code: string, retryAfter: string) => async () =>
      new Response(JSON.stringify({ status, errors: [{ code, description: 'busy' }] }), { status, headers: { 'content-type': 'application/json', 'retry-after': retryAfter } });
    const limited = new Colibri({ baseUrl: service().baseUrl, token: merchant.token, maxRetries: 0, fetch: answer(429, ERROR_CODES.RATE_LIMITED, '7') });
    await expect(limited.me()).rejects.toSatisfy((e: unknown) => e instanceof RateLimitError && e.retryAfterSeconds === 7 && e.status === 429);
    const down = new Colibri({ baseUrl: service().baseUrl, token: merchant.token, maxRetries: 0, fetch: answer(503, ERROR_CODES.DATABASE_UNAVAILABLE, '1') });
    await expect(down.me()).rejects.toSatisfy((e: unknown) => e instanceof ServiceUnavailableError && e.retryAfterSeconds === 1 && e.hasCode(ERROR_CODES.DATABASE_UNAVAILABLE));
  });

  it("replays the first answer to a caller's own idempotencyKey, across two SDK instances (the first one's process crashed)", async () => {
    const merchant = await service().merchant();
    const ids = await customer(clientFor(service(), merchant).colibri);
    const key = `order-4711-payment-${merchant.merchant_id}`;
    const body = { contract_id: merchant.contract_id, reference_id: 'sdk-own-key', ...ids, payment: { amount: '31.00', method: 'CREDITCARD' as const, asset: 'BRL', installments: 1 } };
    // The first process: the service takes the payment, and the answer never reaches it (no retries left).
    const crashed = new Colibri({
      baseUrl: service().baseUrl,
      apiKey: merchant.api_key,
      apiSecret: merchant.api_secret,
      maxRetries: 0,
      fetch: async (request) => {
        const response = await fetch(request);
        if (new URL(request.url).pathname !== '/checkout/sendPayment') return response;
        await response.body?.cancel();
        throw new TypeError('fetch failed (the process died before reading the answer)');
      },
    });
    const lost = await crashed.payments.send(body, { idempotencyKey: key }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ColibriConnectionError);
    expect((lost as ColibriConnectionError).idempotencyKey).toBe(key);

    // The restarted process: another instance, another token, the same key from the merchant's own order.
    const { colibri: second, sent } = clientFor(service(), merchant);
    const replayed = await second.payments.send(body, { idempotencyKey: key });
    expect(sent.find((s) => s.path === '/checkout/sendPayment')!.headers.get('idempotency-key')).toBe(key);
    const count = await service().ctx.db.selectFrom('payments').select((eb) => eb.fn.countAll<string>().as('n')).where('reference_id', '=', 'sdk-own-key').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    const stored = await service().ctx.db.selectFrom('payments').select('payment_token').where('reference_id', '=', 'sdk-own-key').executeTakeFirstOrThrow();
    expect(replayed.payment_token).toBe(stored.payment_token);
    // The key with another body is refused, by its own class.
    const reused = await second.payments.send({ ...body, reference_id: 'sdk-own-key-2' }, { idempotencyKey: key }).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(IdempotencyError);
    expect(reused).toMatchObject({ status: 422, codes: [ERROR_CODES.IDEMPOTENCY_KEY_REUSED] });
    // A key the service would refuse is refused before anything is sent.
    await expect(second.payments.send(body, { idempotencyKey: 'has spaces' })).rejects.toThrow(/idempotencyKey must be 1 to 255 visible ASCII characters/);
  });

  it('answers a dispute: sandbox chargeback, listed page by page, evidence, submit, ruling', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const ids = await customer(colibri);
    const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-dispute', ...ids, payment: { amount: '40.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    await colibri.payments.waitForOutcome(payment.payment_token);
    const opened = await colibri.sandbox.dispute(payment.payment_token, { amount: 15 });
    expect(opened).toMatchObject({ status: 'NEEDS_RESPONSE', amount: 15, reference_id: 'sdk-dispute' });
    const listed = [];
    for await (const dispute of colibri.disputes.all({ size: 1 })) listed.push(dispute.dispute_id);
    expect(listed).toEqual([opened.dispute_id]);
    await colibri.disputes.addEvidence(opened.dispute_id, { customer_communication: 'The payer confirmed the order by e-mail.' });
    expect((await colibri.disputes.submit(opened.dispute_id)).status).toBe('UNDER_REVIEW');
    expect((await colibri.sandbox.closeDispute(opened.dispute_id, 'WON')).status).toBe('WON');
    expect((await colibri.disputes.get(opened.dispute_id)).evidence.customer_communication).toBe('The payer confirmed the order by e-mail.');
    await expect(colibri.disputes.accept(opened.dispute_id)).rejects.toMatchObject({ name: 'ConflictError', status: 409, codes: ['09.02.0001'] });
  });

  it('finds payments by reference and walks every page, not shifted by payments made meanwhile', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const ids = await customer(colibri);
    const send = (reference: string) => colibri.payments.send({ contract_id: merchant.contract_id, reference_id: reference, ...ids, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    for (const reference of ['walk-1', 'walk-2', 'walk-3']) await send(reference);
    const found = await colibri.payments.list({ reference_id: 'walk-2' });
    expect(found.content.map((p) => p.reference_id)).toEqual(['walk-2']);
    const seen: string[] = [];
    for await (const payment of colibri.payments.all({ size: 1 })) {
      seen.push(payment.reference_id);
      // A payment made while walking: after the first page, it would shift every page by one.
      if (seen.length === 1) await send('walk-4');
    }
    expect(seen).toEqual(['walk-3', 'walk-2', 'walk-1']);
  });

  it('registers where settlements go and reads them page by page', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const settings = await colibri.settlements.updateSettings({ currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: 'financeiro@loja.com.br' } }] });
    expect(settings.currencies).toEqual([{ asset: 'BRL', minimum: 50, destination: { kind: 'PIX_KEY', pix_key: 'financeiro@loja.com.br', pix_key_type: 'EMAIL' } }]);
    expect((await colibri.settlements.settings()).paused).toBe(false);
    const ids = await customer(colibri);
    const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-settlement', ...ids, payment: { amount: '100.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
    await colibri.payments.waitForOutcome(payment.payment_token);
    // Past the payment's availability, a day at a time until a business day's sweep (run with each move) settles it.
    await colibri.sandbox.advanceClock(35 * 86_400);
    for (let day = 0; day < 7 && (await colibri.settlements.list()).totalElements === 0; day += 1) await colibri.sandbox.advanceClock(86_400);
    const listed = [];
    for await (const settlement of colibri.settlements.all({ size: 1 })) listed.push(settlement);
    expect(listed).toEqual([expect.objectContaining({ amount: 96.24, asset: 'BRL' })]);
    expect((await colibri.settlements.get(listed[0]!.settlement_id)).settlement_id).toBe(listed[0]!.settlement_id);
    await expect(colibri.settlements.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ name: 'NotFoundError', status: 404, codes: ['10.05.0001'] });
    await expect(colibri.settlements.updateSettings({ currencies: [{ asset: 'BRL', destination: { pix_key: 'nope' } }] })).rejects.toMatchObject({ name: 'ValidationError', status: 400, codes: ['10.06.0006'] });
  });

  it('pages through events, streams them, and verifies a real callback', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const receiver = await startReceiver();
    const controller = new AbortController();
    const streamed: CallbackEvent[] = [];
    const streaming = (async () => {
      for await (const event of colibri.events.stream({ signal: controller.signal })) streamed.push(event);
    })();
    try {
      const ids = await customer(colibri);
      const tokens: string[] = [];
      for (const n of [1, 2]) {
        const p = await colibri.payments.send({
          contract_id: merchant.contract_id,
          reference_id: `sdk-events-${n}`,
          notification_url: `${receiver.url}/hook`,
          ...ids,
          payment: { amount: 12, method: 'CREDITCARD', asset: 'BRL', installments: 1 },
        });
        tokens.push(p.payment_token);
        // Bounded well inside the test's own timeout, so a payment that stays PROCESSING fails here, by name.
        const settled = await colibri.payments.waitForOutcome(p.payment_token, { timeoutMs: 8_000 });
        expect(settled.general_info.transaction_status, `payment ${p.payment_token}`).toBe('PAID');
      }
      const all: string[] = [];
      for await (const event of colibri.events.all({ limit: 1 })) all.push(event.id);
      expect(all.length).toBeGreaterThanOrEqual(4);
      expect(new Set(all).size).toBe(all.length);

      await receiver.waitFor(() => receiver.at('/hook').some((c) => c.body.includes('"PAID"')), 10_000, 'a PAID callback');
      const callback = receiver.at('/hook').find((c) => c.body.includes('"PAID"'))!;
      const event = verifyCallback(callback.body, callback.headers as Record<string, string>, merchant.webhook_secret);
      expect(event.type).toBe('payment.status_changed');
      // The type narrows data: a payment's fields, typed.
      if (event.type !== 'payment.status_changed') throw new Error(`not a payment event: ${event.type}`);
      expect(tokens).toContain(event.data.payment_token);
      expect(event.data.amount).toBe(12);
      expect(() => verifyCallback(callback.body.replace('PAID', 'PAIX'), callback.headers as Record<string, string>, merchant.webhook_secret)).toThrow(CallbackVerificationError);

      const paid = () => streamed.filter((e): e is CallbackEvent<'payment.status_changed'> => e.type === 'payment.status_changed' && e.data.status === 'PAID');
      const deadline = Date.now() + 10_000;
      while (paid().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(paid().map((e) => e.data.payment_token).sort()).toEqual([...tokens].sort());
    } finally {
      controller.abort();
      // Bounded, so a stream that ignored the abort fails here by name instead of at the test's timeout.
      const ended = await Promise.race([streaming.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
      await receiver.close();
      expect(ended, 'the event stream ended within 5 s of its abort').toBe(true);
    }
  });

  it('manages webhook endpoints, whose callbacks verify with their own secret as typed events', async () => {
    const merchant = await service().merchant();
    const { colibri } = clientFor(service(), merchant);
    const receiver = await startReceiver();
    try {
      const endpoint = await colibri.webhookEndpoints.create({ url: `${receiver.url}/endpoint`, enabled_events: ['payment.status_changed'], description: 'sdk' });
      expect(endpoint.webhook_secret).toMatch(/^whsec_/);
      expect((await colibri.webhookEndpoints.list()).map((e) => e.id)).toEqual([endpoint.id]);
      expect(await colibri.webhookEndpoints.get(endpoint.id)).toMatchObject({ id: endpoint.id, enabled: true, enabled_events: ['payment.status_changed'] });
      expect(await colibri.webhookEndpoints.update(endpoint.id, { description: null })).toMatchObject({ description: null });

      const ids = await customer(colibri);
      const payment = await colibri.payments.send({ contract_id: merchant.contract_id, reference_id: 'sdk-endpoint-1', ...ids, payment: { amount: 15, method: 'CREDITCARD', asset: 'BRL', installments: 1 } });
      await receiver.waitFor(() => receiver.at('/endpoint').some((c) => c.body.includes('"PAID"')), 10_000, 'a PAID callback at the endpoint');
      const callback = receiver.at('/endpoint').find((c) => c.body.includes('"PAID"'))!;
      const event = verifyCallback(callback.body, callback.headers as Record<string, string>, endpoint.webhook_secret);
      expect(() => verifyCallback(callback.body, callback.headers as Record<string, string>, merchant.webhook_secret)).toThrow(CallbackVerificationError);
      if (event.type !== 'payment.status_changed') throw new Error(`not a payment event: ${event.type}`);
      expect(event.data).toMatchObject({ payment_token: payment.payment_token, status: 'PAID', amount: 15 });

      const rotated = await colibri.webhookEndpoints.rotateSecret(endpoint.id);
      expect(rotated.webhook_secret).not.toBe(endpoint.webhook_secret);
      await colibri.webhookEndpoints.delete(endpoint.id);
      expect(await colibri.webhookEndpoints.list()).toEqual([]);
      await expect(colibri.webhookEndpoints.get(endpoint.id)).rejects.toMatchObject({ status: 404, codes: [ERROR_CODES.WEBHOOK_ENDPOINT_NOT_FOUND] });
      await expect(colibri.webhookEndpoints.delete(endpoint.id)).rejects.toMatchObject({ status: 404 });
    } finally {
      await receiver.close();
    }
  });
});
