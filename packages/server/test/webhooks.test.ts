import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent, type EventType } from '../src/events/outbox';
import { createMerchant } from '../src/merchants/create-merchant';
import { createOutboundGuard } from '../src/webhooks/outbound-guard';
import { purgeOldEvents } from '../src/webhooks/retention';
import { createCallbackAgent, postCallback } from '../src/webhooks/post-callback';
import { callbackPath as path, startReceiver, verifyCallback as verify, type CallbackReceiver, type ReceivedCallback } from './callback-receiver';
import { customerWithCard, paymentBody } from './fixtures';
import { createTestDatabase, describeEachEngine, ENGINES, type TestMerchant, type TestService } from './harness';
import { api, freePort, spawnColibri, waitForOutput } from './processes';

/**
 * Merchant callbacks end to end: a real receiver on 127.0.0.1, the service's own callback worker,
 * signatures checked with the official `standardwebhooks` library. Retries are made fast for the
 * suite (COLIBRI_CALLBACK_RETRY_BASE_MS=50: 50 ms, 100 ms, 200 ms…) and the retry window short
 * (1 s), so a failing receiver's callback is marked failed within the test.
 */

const RETRY_WINDOW_MS = 1_000;

let receiver: CallbackReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** Records an event the way a domain does, in a transaction, and wakes the worker as a domain does after committing. */
/** An event whose one delivery is pending, its next attempt a day away from the moment it is recorded. */
async function recordHeld(service: TestService, merchant: TestMerchant, url: string) {
  const resourceId = `res-${randomBytes(4).toString('hex')}`;
  const id = await service.ctx.db.transaction().execute(async (trx) => {
    const eventId = await recordEvent(trx, {
      merchantId: merchant.merchant_id,
      type: 'payment.status_changed',
      resourceType: 'payment',
      resourceId,
      data: { payment_token: resourceId, reference_id: 'order-1', status: 'PAID' },
      notificationUrls: [url],
    });
    await trx.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() + 86_400_000) }).where('event_id', '=', eventId).execute();
    return eventId;
  });
  return { id, resourceId };
}

async function record(service: TestService, merchant: TestMerchant, urls: string[], data: Record<string, unknown> = {}, type: EventType = 'payment.status_changed') {
  const resourceId = `res-${randomBytes(4).toString('hex')}`;
  const id = await service.ctx.db.transaction().execute((trx) =>
    recordEvent(trx, {
      merchantId: merchant.merchant_id,
      type,
      resourceType: 'payment',
      resourceId,
      data: { payment_token: resourceId, reference_id: 'order-1', status: 'PAID', ...data },
      notificationUrls: urls,
    }),
  );
  service.ctx.workerSignal.poke();
  return { id, resourceId };
}

async function eventOf(service: TestService, merchant: TestMerchant, id: string) {
  const response = await service.get(`/webhooks/events/${id}`, { token: merchant.token });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function waitForEvent(service: TestService, merchant: TestMerchant, id: string, until: (event: any) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await eventOf(service, merchant, id);
    if (until(event)) return event;
    if (Date.now() > deadline) throw new Error(`event ${id} did not reach the expected state: ${JSON.stringify(event)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

describeEachEngine(
  'merchant callbacks',
  (service) => {
    it("delivers a payment's status changes signed, each verifying with the standardwebhooks library", async () => {
      const m = await service().merchant();
      const ids = await customerWithCard(service(), m);
      const target = path('payment');
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { notification_url: `${receiver.url}${target}` }), { token: m.token });
      expect(sent.status, sent.text).toBe(200);
      await receiver.waitFor(() => receiver.at(target).length >= 2, 10_000, 'PROCESSING and PAID callbacks');

      const callbacks = receiver.at(target);
      const payloads = callbacks.map((c) => verify(m.webhook_secret, c) as any);
      expect(payloads.map((p) => p.data.status).sort()).toEqual(['PAID', 'PROCESSING']);
      for (const [i, payload] of payloads.entries()) {
        const callback = callbacks[i] as ReceivedCallback;
        expect(Object.keys(payload)).toEqual(['id', 'type', 'created_at', 'data']);
        expect(payload.id).toBe(callback.headers['webhook-id']);
        expect(payload.type).toBe('payment.status_changed');
        expect(payload.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(payload.data).toMatchObject({ payment_token: sent.body.payment_token, reference_id: expect.stringMatching(/^order-/), amount: 100, asset: 'BRL' });
        expect(callback.headers['content-type']).toBe('application/json');
        expect(callback.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
        expect(Math.abs(Number(callback.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      }
      // A tampered body or another merchant's secret does not verify.
      const first = callbacks[0] as ReceivedCallback;
      expect(() => new Webhook(m.webhook_secret).verify(first.body.replace('PAID', 'PAYD').replace('PROCESSING', 'PROCESSINH'), first.headers as Record<string, string>)).toThrow(WebhookVerificationError);
      const other = await service().merchant('Other');
      expect(() => verify(other.webhook_secret, first)).toThrow(WebhookVerificationError);
    });

    it('retries a 500 and delivers the same event again with the same webhook-id', async () => {
      const m = await service().merchant();
      const target = path('flaky');
      receiver.on(target, (_request, before) => ({ status: before === 0 ? 500 : 200 }));
      const { id } = await record(service(), m, [`${receiver.url}${target}`]);
      await receiver.waitFor(() => receiver.at(target).length >= 2, 10_000, 'the retried callback');
      const [failed, retried] = receiver.at(target) as [ReceivedCallback, ReceivedCallback];
      expect(failed.headers['webhook-id']).toBe(id);
      expect(retried.headers['webhook-id']).toBe(id);
      expect(retried.body).toBe(failed.body);
      expect(verify(m.webhook_secret, failed)).toEqual(verify(m.webhook_secret, retried));

      const event = await waitForEvent(service(), m, id, (e) => e.status === 'delivered');
      expect(event.deliveries).toHaveLength(1);
      const delivery = event.deliveries[0];
      expect(delivery).toMatchObject({ url: `${receiver.url}${target}`, status: 'delivered', attempt_count: 2, next_attempt_at: null, failed_at: null });
      expect(delivery.attempts).toEqual([
        { attempt: 1, attempted_at: expect.any(String), response_status: 500, latency_ms: expect.any(Number), error: 'HTTP 500', result: 'retry_scheduled', manual: false },
        { attempt: 2, attempted_at: expect.any(String), response_status: 200, latency_ms: expect.any(Number), error: null, result: 'delivered', manual: false },
      ]);
      expect(delivery.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
      expect(receiver.at(target)).toHaveLength(2);
    });

    it('treats a redirect as a failure and does not follow it', async () => {
      const m = await service().merchant();
      const target = path('redirect');
      const elsewhere = path('redirect-target');
      receiver.on(target, () => ({ status: 302, headers: { location: `${receiver.url}${elsewhere}` } }));
      const { id } = await record(service(), m, [`${receiver.url}${target}`]);
      const event = await waitForEvent(service(), m, id, (e) => e.deliveries[0].attempts.length >= 2);
      expect(event.deliveries[0].attempts[0]).toMatchObject({ response_status: 302, result: 'retry_scheduled', error: expect.stringMatching(/^HTTP 302: redirect to .* not followed$/) });
      expect(receiver.at(elsewhere)).toHaveLength(0);
    });

    it('marks a callback failed once every attempt in the retry window failed', async () => {
      const m = await service().merchant();
      const target = path('down');
      receiver.on(target, () => ({ status: 503 }));
      const { id } = await record(service(), m, [`${receiver.url}${target}`]);
      const event = await waitForEvent(service(), m, id, (e) => e.status === 'failed', RETRY_WINDOW_MS + 8_000);
      const delivery = event.deliveries[0];
      expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null, failed_at: expect.any(String) });
      expect(delivery.attempt_count).toBeGreaterThanOrEqual(3);
      expect(delivery.attempts.at(-1).result).toBe('failed');
      expect(delivery.attempts.slice(0, -1).every((a: any) => a.result === 'retry_scheduled')).toBe(true);
      // Exponential backoff: each wait is at least 0.8 of twice the one before.
      const times = delivery.attempts.map((a: any) => Date.parse(a.attempted_at));
      for (let i = 2; i < times.length; i += 1) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(0.8 * 0.8 * (times[i - 1] - times[i - 2]));
      const failed = await service().get('/webhooks/events?status=failed', { token: m.token });
      expect(failed.body.events.map((e: any) => e.id)).toEqual([id]);
    });

    it('purges settled events past the retention with their deliveries and attempts, and keeps pending and recent ones', async () => {
      const m = await service().merchant();
      const up = path('retention-up');
      const down = path('retention-down');
      receiver.on(up, () => ({ status: 200 }));
      receiver.on(down, () => ({ status: 503 }));
      const delivered = await record(service(), m, [`${receiver.url}${up}`]);
      const failed = await record(service(), m, [`${receiver.url}${down}`]);
      const skipped = await record(service(), m, []);
      // Still being retried: its next attempt is a day away, set in the transaction that records it, so no
      // attempt of it can be in flight when the purge runs.
      const pending = await recordHeld(service(), m, `${receiver.url}${down}`);
      const recent = await record(service(), m, [`${receiver.url}${up}`]);
      await waitForEvent(service(), m, delivered.id, (e) => e.status === 'delivered');
      await waitForEvent(service(), m, recent.id, (e) => e.status === 'delivered');
      await waitForEvent(service(), m, failed.id, (e) => e.status === 'failed', RETRY_WINDOW_MS + 8_000);
      const db = service().ctx.db;
      const old = [delivered.id, failed.id, skipped.id, pending.id];
      await sql`update events set created_at = now() - interval '100 days' where id = any(${old}::uuid[])`.execute(db);
      const attemptsBefore = await db.selectFrom('webhook_attempts').select('event_id').where('event_id', 'in', [delivered.id, failed.id]).execute();
      expect(attemptsBefore.length).toBeGreaterThanOrEqual(2);

      expect(await purgeOldEvents(db, new Date(Date.now() - 90 * 86_400_000))).toBe(3);
      for (const id of [delivered.id, failed.id, skipped.id]) {
        expect((await service().get(`/webhooks/events/${id}`, { token: m.token })).status, id).toBe(404);
      }
      const purged = [delivered.id, failed.id, skipped.id];
      expect(await db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', purged).execute()).toEqual([]);
      expect(await db.selectFrom('webhook_attempts').select('id').where('event_id', 'in', purged).execute()).toEqual([]);
      expect((await eventOf(service(), m, pending.id)).status).toBe('pending');
      expect((await eventOf(service(), m, recent.id)).status).toBe('delivered');
      // Nothing more is old enough now.
      expect(await purgeOldEvents(db, new Date(Date.now() - 90 * 86_400_000))).toBe(0);
    });

    it('refuses private, link-local and metadata addresses and records why', async () => {
      const m = await service().merchant();
      const { id } = await record(service(), m, ['http://10.0.0.1:9/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:192.168.0.1]/x']);
      const event = await waitForEvent(service(), m, id, (e) => e.deliveries.every((d: any) => d.attempts.length > 0));
      const errors = event.deliveries.map((d: any) => d.attempts[0].error);
      expect(errors).toEqual([
        'refused: 10.0.0.1 is a private address (not listed in COLIBRI_CALLBACK_ALLOW_HOSTS)',
        'refused: 169.254.169.254 is a metadata address (not listed in COLIBRI_CALLBACK_ALLOW_HOSTS)',
        'refused: ::ffff:c0a8:1 is a private address (not listed in COLIBRI_CALLBACK_ALLOW_HOSTS)',
      ]);
      for (const d of event.deliveries) expect(d.attempts[0]).toMatchObject({ response_status: null, result: 'retry_scheduled' });
    });

    it('delivers an event again on POST /webhooks/events/<id>/retry, and only the owner may ask', async () => {
      const m = await service().merchant();
      const target = path('replay');
      const { id } = await record(service(), m, [`${receiver.url}${target}`]);
      await waitForEvent(service(), m, id, (e) => e.status === 'delivered');
      expect(receiver.at(target)).toHaveLength(1);

      const other = await service().merchant('Nosy');
      const foreign = await service().post(`/webhooks/events/${id}/retry`, undefined, { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body.errors).toEqual([{ code: '07.01.0001', description: "id: no event of this merchant has this id (another merchant's is not found either)." }]);
      expect((await service().post('/webhooks/events/not-a-uuid/retry', undefined, { token: m.token })).status).toBe(404);

      const retried = await service().post(`/webhooks/events/${id}/retry`, undefined, { token: m.token });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({ id, status: 'pending', deliveries: [{ status: 'pending' }] });
      await receiver.waitFor(() => receiver.at(target).length >= 2, 10_000, 'the redelivery');
      const [first, again] = receiver.at(target) as [ReceivedCallback, ReceivedCallback];
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      verify(m.webhook_secret, again);
      const event = await waitForEvent(service(), m, id, (e) => e.status === 'delivered');
      expect(event.deliveries[0].attempts.map((a: any) => [a.attempt, a.result, a.manual])).toEqual([
        [1, 'delivered', false],
        [2, 'delivered', true],
      ]);

      const silent = await record(service(), m, []);
      const nothing = await service().post(`/webhooks/events/${silent.id}/retry`, undefined, { token: m.token });
      expect(nothing.status).toBe(422);
      expect(nothing.body.errors[0].code).toBe('07.01.0002');
    });

    it('rotates the secret: during the overlap both secrets verify; afterwards only the new one', async () => {
      const m = await service().merchant();
      const target = path('rotation');
      const rotated = await service().post('/webhooks/secret/rotate', undefined, { token: m.token });
      expect(rotated.status, rotated.text).toBe(200);
      expect(Object.keys(rotated.body)).toEqual(['webhook_secret']);
      const next = rotated.body.webhook_secret as string;
      expect(next).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(next).not.toBe(m.webhook_secret);

      await record(service(), m, [`${receiver.url}${target}`]);
      await receiver.waitFor(() => receiver.at(target).length >= 1);
      const during = receiver.at(target)[0] as ReceivedCallback;
      expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verify(m.webhook_secret, during)).toMatchObject({ type: 'payment.status_changed' });
      expect(verify(next, during)).toMatchObject({ type: 'payment.status_changed' });

      // Secrets are stored encrypted; the creation secret left the merchants table when it was moved.
      const db = service().ctx.db;
      const stored = await db.selectFrom('webhook_secrets').select(['secret_ciphertext', 'expires_at']).where('merchant_id', '=', m.merchant_id).orderBy('created_at').execute();
      expect(stored).toHaveLength(2);
      expect(stored[0]?.expires_at?.getTime()).toBeGreaterThan(Date.now() + 23.9 * 3_600_000);
      expect(stored[1]?.expires_at).toBeNull();
      for (const s of stored) expect(s.secret_ciphertext).not.toContain(next.slice(6, 20));
      expect((await db.selectFrom('merchants').select('webhook_secret').where('id', '=', m.merchant_id).executeTakeFirstOrThrow()).webhook_secret).toBe('');

      // The overlap ends (here by moving its end into the past): only the new secret signs.
      await db.updateTable('webhook_secrets').set({ expires_at: new Date(Date.now() - 1000) }).where('merchant_id', '=', m.merchant_id).where('expires_at', 'is not', null).execute();
      await record(service(), m, [`${receiver.url}${target}`]);
      await receiver.waitFor(() => receiver.at(target).length >= 2);
      const after = receiver.at(target)[1] as ReceivedCallback;
      expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(verify(next, after)).toMatchObject({ type: 'payment.status_changed' });
      expect(() => verify(m.webhook_secret, after)).toThrow(WebhookVerificationError);
    });

    it('lists events with attempts, filters and pages them, and hides other merchants', async () => {
      const m = await service().merchant();
      const target = path('log');
      const delivered = await record(service(), m, [`${receiver.url}${target}`]);
      const skipped = await record(service(), m, [], {}, 'payout.status_changed');
      const others = [];
      for (let i = 0; i < 3; i += 1) others.push(await record(service(), m, [`${receiver.url}${target}`]));
      await waitForEvent(service(), m, delivered.id, (e) => e.status === 'delivered');
      const all = [delivered, skipped, ...others].map((e) => e.id);

      const first = await service().get('/webhooks/events?limit=2', { token: m.token });
      expect(first.status, first.text).toBe(200);
      expect(first.body.events).toHaveLength(2);
      expect(first.body.has_more).toBe(true);
      const seen = first.body.events.map((e: any) => e.id);
      let cursor = first.body.next_cursor as string | null;
      while (cursor) {
        const page = await service().get(`/webhooks/events?limit=2&cursor=${encodeURIComponent(cursor)}`, { token: m.token });
        expect(page.status, page.text).toBe(200);
        seen.push(...page.body.events.map((e: any) => e.id));
        cursor = page.body.next_cursor;
      }
      expect(seen).toEqual([...all].reverse());

      const byType = await service().get('/webhooks/events?type=payout.status_changed', { token: m.token });
      expect(byType.body.events.map((e: any) => e.id)).toEqual([skipped.id]);
      expect(byType.body.events[0]).toMatchObject({ status: 'skipped', deliveries: [], resource_type: 'payment', resource_id: skipped.resourceId });
      const byResource = await service().get(`/webhooks/events?resource_id=${delivered.resourceId}`, { token: m.token });
      expect(byResource.body.events).toHaveLength(1);
      const event = byResource.body.events[0];
      expect(event).toMatchObject({ id: delivered.id, type: 'payment.status_changed', status: 'delivered', data: { payment_token: delivered.resourceId, reference_id: 'order-1', status: 'PAID' } });
      expect(event.deliveries[0].attempts[0]).toMatchObject({ attempt: 1, response_status: 204, result: 'delivered', error: null, latency_ms: expect.any(Number) });
      const bySkipped = await service().get('/webhooks/events?status=skipped', { token: m.token });
      expect(bySkipped.body.events.map((e: any) => e.id)).toEqual([skipped.id]);

      const createdAt = event.created_at as string;
      const window = await service().get(`/webhooks/events?created_from=${createdAt}&created_to=${createdAt}`, { token: m.token });
      expect(window.body.events.map((e: any) => e.id)).toContain(delivered.id);
      const future = await service().get(`/webhooks/events?created_from=${new Date(Date.now() + 60_000).toISOString()}`, { token: m.token });
      expect(future.body).toEqual({ events: [], has_more: false, next_cursor: null });

      const badRange = await service().get(`/webhooks/events?created_from=${new Date().toISOString()}&created_to=2020-01-01T00:00:00Z`, { token: m.token });
      expect(badRange.status).toBe(400);
      expect(badRange.body.errors[0].code).toBe('07.01.0004');
      const badCursor = await service().get('/webhooks/events?cursor=bm9wZQ', { token: m.token });
      expect(badCursor.status).toBe(400);
      expect(badCursor.body.errors[0].code).toBe('07.01.0003');
      const tooMany = await service().get('/webhooks/events?limit=101', { token: m.token });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.errors).toEqual([{ code: '00.01.0006', description: 'limit: must be <= 100.' }]);
      const badStatus = await service().get('/webhooks/events?status=lost', { token: m.token });
      expect(badStatus.body.errors[0].code).toBe('00.01.0005');
      expect((await service().get('/webhooks/events')).status).toBe(401);

      const stranger = await service().merchant('Stranger');
      const theirs = await service().get('/webhooks/events?limit=100', { token: stranger.token });
      expect(theirs.body.events).toEqual([]);
      expect((await service().get(`/webhooks/events/${delivered.id}`, { token: stranger.token })).status).toBe(404);
      const filtered = await service().get(`/webhooks/events?resource_id=${delivered.resourceId}`, { token: stranger.token });
      expect(filtered.body.events).toEqual([]);
    });
  },
  // Claims 10 ms apart rather than 100 (COLIBRI_CLAIM_INTERVAL_MS): with retries 50 ms apart, the default spacing would round them up.
  { env: { COLIBRI_CALLBACK_RETRY_BASE_MS: '50', COLIBRI_CALLBACK_RETRY_WINDOW_MS: String(RETRY_WINDOW_MS), COLIBRI_CALLBACK_TIMEOUT_MS: '2000', COLIBRI_CLAIM_INTERVAL_MS: '10' } },
);

describe('outbound safety over real HTTP', () => {
  it('refuses 127.0.0.1 and localhost when they are not allowed, without connecting', async () => {
    const guard = createOutboundGuard([]);
    const agent = createCallbackAgent(guard, 2_000);
    const target = path('refused');
    try {
      for (const url of [`${receiver.url}${target}`, `${receiver.url.replace('127.0.0.1', 'localhost')}${target}`]) {
        const result = await postCallback({ agent, guard, url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 });
        expect(result.status).toBeNull();
        expect(result.error).toMatch(/^refused: (127\.0\.0\.1 is|localhost resolves to (127\.0\.0\.1|::1),) a loopback address/);
      }
      expect(receiver.at(target)).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('stops reading a large answer and times out a silent receiver', async () => {
    const guard = createOutboundGuard(['127.0.0.1']);
    const agent = createCallbackAgent(guard, 300);
    const silent = path('silent');
    const endless = path('endless');
    receiver.on(silent, () => ({ status: 200, delayMs: 1_000 }));
    receiver.on(endless, () => ({ status: 200, endlessBody: true }));
    try {
      const result = await postCallback({ agent, guard, url: `${receiver.url}${silent}`, headers: {}, body: '{}', timeoutMs: 300 });
      expect(result).toMatchObject({ status: null, error: 'timeout: no complete answer within 300 ms' });
      expect(result.latencyMs).toBeLessThan(900);
      // A body that never ends is cut off after 4 KiB: the 200 counts, and the attempt does not wait for the rest.
      const large = await postCallback({ agent, guard, url: `${receiver.url}${endless}`, headers: {}, body: '{}', timeoutMs: 300 });
      expect(large).toMatchObject({ status: 200, error: null });
      expect(large.latencyMs).toBeLessThan(250);
    } finally {
      await agent.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Processes: SIGKILL during deliveries, and two workers sharing one PostgreSQL.

for (const engine of ENGINES) {
  it(`[${engine}] loses no callback when the service is killed with SIGKILL while deliveries are pending`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'colibri-crash-'));
    const database = engine === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const adminToken = `adm_crash_${randomBytes(8).toString('hex')}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      COLIBRI_DATA_DIR: dataDir,
      DATABASE_URL: database?.url ?? '',
      COLIBRI_ADMIN_TOKEN: adminToken,
      COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      COLIBRI_CALLBACK_RETRY_BASE_MS: '100',
      COLIBRI_CALLBACK_TIMEOUT_MS: '1000',
      COLIBRI_SANDBOX_DELAY_MS: '20',
    };
    const target = path('crash');
    // The merchant's endpoint is down and slow: 503 after 150 ms, so attempts are in flight at the kill.
    let up = false;
    receiver.on(target, () => (up ? { status: 200 } : { status: 503, delayMs: 150 }));
    let service = spawnColibri('serve', env);
    try {
      await waitForOutput(service, 'is running at');
      const created = await api(base, 'POST', '/admin/merchants', { name: 'Crash Shop' }, { authorization: `Bearer ${adminToken}` });
      expect(created.status, created.text).toBe(201);
      const { token } = (await api(base, 'POST', '/auth', { apiKey: created.body.api_key, apiSecret: created.body.api_secret })).body;
      const auth = { 'x-auth-token': token };
      const person = await api(base, 'POST', '/checkout/person', { name: 'Ana Lima', email: 'ana@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, auth);
      const card = await api(base, 'POST', '/checkout/card', { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA LIMA' }, auth);
      expect(card.status, card.text).toBe(200);
      const payments = 6;
      for (let i = 0; i < payments; i += 1) {
        const sent = await api(
          base,
          'POST',
          '/checkout/sendPayment',
          { contract_id: created.body.contract_id, reference_id: `crash-${i}`, notification_url: `${receiver.url}${target}`, public_person_id: person.body.public_person_id, public_card_id: card.body.public_card_id, payment: { amount: '10.00', method: 'CREDITCARD', asset: 'BRL', installments: 1 } },
          auth,
        );
        expect(sent.status, sent.text).toBe(200);
      }
      // Every payment has settled (PROCESSING and PAID events) and callbacks are being attempted and failing.
      const expected = payments * 2;
      const pendingEvents = async () => (await api(base, 'GET', '/webhooks/events?status=pending&limit=100', undefined, auth)).body.events as any[];
      const deadline = Date.now() + 20_000;
      while ((await pendingEvents()).length < expected || receiver.at(target).length < expected) {
        if (Date.now() > deadline) throw new Error(`callbacks never got under way: ${receiver.at(target).length} attempts`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const eventIds = (await pendingEvents()).map((e) => e.id as string);
      expect(eventIds).toHaveLength(expected);

      service.process.kill('SIGKILL');
      await service.exited;
      up = true;
      service = spawnColibri('serve', env);
      await waitForOutput(service, 'is running at');

      const deliveredIds = () => new Set(receiver.at(target).filter((c) => c.status === 200).map((c) => c.id));
      await receiver.waitFor(() => eventIds.every((id) => deliveredIds().has(id)), 25_000, 'every event after the restart');
      // Each delivery reached the receiver; its record may trail the answer by a moment.
      const settledIds = async () => ((await api(base, 'GET', '/webhooks/events?status=delivered&limit=100', undefined, auth)).body.events as any[]).map((e) => e.id as string);
      const settleBy = Date.now() + 10_000;
      while ((await settledIds()).length < expected && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 50));
      expect((await settledIds()).sort()).toEqual([...eventIds].sort());
      for (const callback of receiver.at(target)) verify(created.body.webhook_secret, callback);
    } finally {
      service.process.kill('SIGTERM');
      await service.exited;
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
}

const twoWorkers = process.env.TEST_DATABASE_URL ? it : it.skip;
if (process.env.CI && !process.env.TEST_DATABASE_URL) {
  it('two workers on one PostgreSQL (needs TEST_DATABASE_URL, which CI sets)', () => {
    throw new Error('TEST_DATABASE_URL is not set: the two-worker test cannot run');
  });
}

twoWorkers('[postgres] two worker processes deliver 1,000 events, none claimed twice at once', async () => {
  const database = await createTestDatabase('postgres');
  const masterKey = randomBytes(32).toString('base64');
  const target = path('shared');
  receiver.on(target, () => ({ status: 200, delayMs: 5 }));
  const env = {
    DATABASE_URL: database.url ?? '',
    COLIBRI_DATA_DIR: mkdtempSync(join(tmpdir(), 'colibri-workers-')),
    COLIBRI_MASTER_KEY: masterKey,
    COLIBRI_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
    COLIBRI_CALLBACK_CONCURRENCY: '8',
  };
  const workers = [spawnColibri('worker', env), spawnColibri('worker', env)];
  try {
    await Promise.all(workers.map((w) => waitForOutput(w, 'worker running')));
    const db = database.handle.db;
    const merchant = await createMerchant(db, 'Shared Queue');
    const total = 1_000;
    for (let batch = 0; batch < 10; batch += 1) {
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < total / 10; i += 1) {
          await recordEvent(trx, {
            merchantId: merchant.merchant_id,
            type: 'payout.status_changed',
            resourceType: 'payout',
            resourceId: `tx-${batch}-${i}`,
            data: { tx_id: `tx-${batch}-${i}`, reference_id: `ref-${batch}-${i}`, status: 'PAID' },
            notificationUrls: [`${receiver.url}${target}`],
          });
        }
      });
    }
    await receiver.waitFor(() => new Set(receiver.at(target).map((c) => c.id)).size === total, 30_000, '1,000 distinct callbacks');
    const delivered = async () => Number((await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'DELIVERED').executeTakeFirstOrThrow()).n);
    const deadline = Date.now() + 10_000;
    while ((await delivered()) < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await delivered()).toBe(total);

    expect(receiver.overlapsAt(target)).toBe(0);
    expect(receiver.at(target)).toHaveLength(total);
    for (const callback of receiver.at(target)) verify(merchant.webhook_secret, callback);
    const byWorker = await db.selectFrom('webhook_attempts').select(['worker_id', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('worker_id').execute();
    expect(byWorker).toHaveLength(2);
    expect(byWorker.reduce((sum, w) => sum + Number(w.n), 0)).toBe(total);

    // SIGTERM stops a worker cleanly.
    for (const w of workers) w.process.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  } finally {
    for (const w of workers) if (w.process.exitCode === null) w.process.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await database.drop();
    rmSync(env.COLIBRI_DATA_DIR, { recursive: true, force: true });
  }
}, 90_000);
