import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestMerchant, type TestService } from '../../server/test/harness';
import { VALID_CPF } from '../../server/test/fixtures';
import { Colibri, ColibriAbortError, ColibriConnectionError, ColibriTimeoutError } from '../src/index';

/**
 * Time limits and abort against a service that is really slow: the sandbox processor takes
 * COLIBRI_SANDBOX_DELAY_MS (here 1.5 s) to verify a card, so `POST /checkout/card` answers after it.
 * PGlite only: this tests the SDK's clock, not the database.
 */
const PROCESSOR_DELAY_MS = 1500;

describe('SDK time limits and abort against a slow service', () => {
  let service: TestService;
  let merchant: TestMerchant;
  let personId: string;
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { COLIBRI_SANDBOX_DELAY_MS: String(PROCESSOR_DELAY_MS) } });
    merchant = await service.merchant('Slow Shop');
    const colibri = new Colibri({ baseUrl: service.baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret });
    personId = (await colibri.persons.create({ name: 'Maria Silva', email: 'maria@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' })).public_person_id;
  });
  afterAll(async () => {
    // A request aborted by the client on a reused keep-alive connection leaves that connection counted as
    // busy by the server, so app.close() would wait for its keep-alive timeout (72 s): end them all first.
    // Seen here on a test service; the running service sweeps idle connections only (main.ts).
    service?.app.server.closeAllConnections();
    await service?.close();
  });

  const card = () => ({ public_person_id: personId, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'MARIA SILVA' });

  it("a call's timeoutMs ends it with ColibriTimeoutError, its key kept: repeated with the key, the service answers once", async () => {
    const colibri = new Colibri({ baseUrl: service.baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret });
    await colibri.me(); // the token first, so the limit below measures the card call alone
    const started = Date.now();
    const error = await colibri.cards.create(card(), { idempotencyKey: 'card-slow-1', timeoutMs: 300 }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ColibriTimeoutError);
    // A timeout is a kind of "no answer": code that handles ColibriConnectionError handles it too.
    expect(error).toBeInstanceOf(ColibriConnectionError);
    expect(error).toMatchObject({ name: 'ColibriTimeoutError', timeoutMs: 300, idempotencyKey: 'card-slow-1' });
    expect((error as Error).message).toContain('POST /checkout/card');
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(PROCESSOR_DELAY_MS);

    // The same key again (the first request may still be with the processor: the service then waits for
    // it): the answer of the timed-out call, not a second card.
    const replayed = await colibri.cards.create(card(), { idempotencyKey: 'card-slow-1' });
    const cards = await service.ctx.db.selectFrom('cards').select('id').where('person_id', '=', personId).execute();
    expect(cards.map((c) => c.id)).toContain(replayed.public_card_id);
    expect(cards).toHaveLength(1);
  });

  it("the client's timeoutMs applies to every call, a call's own replaces it, and a fast call is not cut", async () => {
    const colibri = new Colibri({ baseUrl: service.baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret, timeoutMs: 250 });
    expect((await colibri.merchant()).merchant_id).toBe(merchant.merchant_id);
    await expect(colibri.cards.create(card())).rejects.toMatchObject({ name: 'ColibriTimeoutError', timeoutMs: 250 });
    const made = await colibri.cards.create(card(), { timeoutMs: PROCESSOR_DELAY_MS * 4 });
    expect(made.public_card_status).toBe('ACTIVE');
    // No limit at all with 0.
    const unlimited = new Colibri({ baseUrl: service.baseUrl, apiKey: merchant.api_key, apiSecret: merchant.api_secret, timeoutMs: 0 });
    expect((await unlimited.cards.create(card())).public_card_status).toBe('ACTIVE');
  });

  it("the caller's signal aborts a call in flight at once with an AbortError, and an aborted signal sends nothing", async () => {
    const sent: string[] = [];
    const colibri = new Colibri({
      baseUrl: service.baseUrl,
      apiKey: merchant.api_key,
      apiSecret: merchant.api_secret,
      fetch: (request) => (sent.push(new URL(request.url).pathname), fetch(request)),
    });
    await colibri.me();
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const error = await colibri.cards.create(card(), { signal: controller.signal, idempotencyKey: 'card-aborted-1' }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ColibriAbortError);
    expect(error).toMatchObject({ name: 'AbortError', idempotencyKey: 'card-aborted-1' });
    expect(elapsed).toBeLessThan(PROCESSOR_DELAY_MS - 500);

    const before = sent.length;
    await expect(colibri.me({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ColibriAbortError);
    expect(sent.length).toBe(before);
    // A signal aborted during the backoff between retries ends the wait too.
    const unreachable = new Colibri({ baseUrl: 'http://127.0.0.1:9', token: merchant.token, retryBaseMs: 5_000 });
    const waiting = new AbortController();
    setTimeout(() => waiting.abort(), 300);
    const backoffStarted = Date.now();
    await expect(unreachable.me({ signal: waiting.signal })).rejects.toBeInstanceOf(ColibriAbortError);
    expect(Date.now() - backoffStarted).toBeLessThan(1500);
  });
});
