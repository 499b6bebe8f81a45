import { randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordEvent, type EventType } from '../src/events/outbox';
import { callbackPath as path, startReceiver, verifyCallback as verify, type CallbackReceiver } from './callback-receiver';
import { customerWithCard, paymentBody } from './fixtures';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';

/**
 * The merchant's webhook endpoints (docs/callbacks.md, "Webhook endpoints") end to end: the routes, and
 * callbacks sent by the service's own worker to a real receiver on 127.0.0.1, verified with the
 * `standardwebhooks` library as a merchant's receiver would. Retries are fast and the window short, as
 * in webhooks.test.ts.
 */

let receiver: CallbackReceiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function createEndpoint(service: TestService, merchant: TestMerchant, body: Record<string, unknown>) {
  const created = await service.post('/webhooks/endpoints', body, { token: merchant.token });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; webhook_secret: string; url: string };
}

/** Records an event as a domain does, in a transaction, and wakes the worker. */
async function record(service: TestService, merchant: TestMerchant, type: EventType, urls: string[], resourceId = `res-${randomBytes(4).toString('hex')}`, status = 'PAID') {
  const id = await service.ctx.db.transaction().execute((trx) =>
    recordEvent(trx, {
      merchantId: merchant.merchant_id,
      type,
      resourceType: 'payment',
      resourceId,
      data: { payment_token: resourceId, reference_id: 'order-1', status },
      notificationUrls: urls,
    }),
  );
  service.ctx.workerSignal.poke();
  return { id, resourceId };
}

async function eventOf(service: TestService, merchant: TestMerchant, id: string): Promise<any> {
  const response = await service.get(`/webhooks/events/${id}`, { token: merchant.token });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function waitForEvent(service: TestService, merchant: TestMerchant, id: string, until: (event: any) => boolean, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await eventOf(service, merchant, id);
    if (until(event)) return event;
    if (Date.now() > deadline) throw new Error(`event ${id} did not reach the expected state: ${JSON.stringify(event)}`);
    await sleep(30);
  }
}

describeEachEngine(
  'webhook endpoints',
  (service) => {
    it('creates, lists, reads, changes and deletes endpoints; the secret is shown once and stored encrypted', async () => {
      const m = await service().merchant();
      const url = `${receiver.url}${path('crud')}`;
      const created = await service().post(
        '/webhooks/endpoints',
        { url, enabled_events: ['refund.status_changed', 'payment.status_changed', 'refund.status_changed'], description: 'orders' },
        { token: m.token },
      );
      expect(created.status, created.text).toBe(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url,
        description: 'orders',
        enabled_events: ['refund.status_changed', 'payment.status_changed'],
        enabled: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      });
      const { id, webhook_secret: secret } = created.body;
      expect(secret).not.toBe(m.webhook_secret);
      const stored = await service().ctx.db.selectFrom('webhook_secrets').select(['secret_ciphertext']).where('endpoint_id', '=', id).execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]!.secret_ciphertext).not.toContain(secret.slice('whsec_'.length, 20));

      const { webhook_secret: _shownOnce, ...endpoint } = created.body;
      const listed = await service().get('/webhooks/endpoints', { token: m.token });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ endpoints: [endpoint] });
      const read = await service().get(`/webhooks/endpoints/${id}`, { token: m.token });
      expect(read.body).toEqual(endpoint);

      const changed = await service().request('PATCH', `/webhooks/endpoints/${id}`, { enabled: false, enabled_events: ['*', 'payout.status_changed'], description: null }, { token: m.token });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({ id, url, enabled: false, enabled_events: ['*'], description: null });
      expect(Date.parse(changed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(endpoint.updated_at));
      const moved = await service().request('PATCH', `/webhooks/endpoints/${id}`, { url: `${url}/v2` }, { token: m.token });
      expect(moved.body).toMatchObject({ url: `${url}/v2`, enabled: false, enabled_events: ['*'] });

      const deleted = await service().request('DELETE', `/webhooks/endpoints/${id}`, undefined, { token: m.token });
      expect(deleted.status).toBe(204);
      expect((await service().get(`/webhooks/endpoints/${id}`, { token: m.token })).status).toBe(404);
      expect((await service().get('/webhooks/endpoints', { token: m.token })).body).toEqual({ endpoints: [] });
      // Its secrets go with it.
      expect(await service().ctx.db.selectFrom('webhook_secrets').select('id').where('endpoint_id', '=', id).execute()).toEqual([]);
    });

    it("keeps each merchant's endpoints its own: another merchant can neither see nor touch them", async () => {
      const owner = await service().merchant('Owner');
      const stranger = await service().merchant('Stranger');
      const mine = await createEndpoint(service(), owner, { url: `${receiver.url}${path('mine')}`, enabled_events: ['*'] });
      const theirs = await createEndpoint(service(), stranger, { url: `${receiver.url}${path('theirs')}`, enabled_events: ['*'] });

      expect((await service().get('/webhooks/endpoints', { token: stranger.token })).body.endpoints.map((e: any) => e.id)).toEqual([theirs.id]);
      const notFound = { code: '07.03.0001', description: "id: no webhook endpoint of this merchant has this id (another merchant's is not found either)." };
      const attempts = [
        await service().get(`/webhooks/endpoints/${mine.id}`, { token: stranger.token }),
        await service().request('PATCH', `/webhooks/endpoints/${mine.id}`, { enabled: false, url: `${receiver.url}/stolen` }, { token: stranger.token }),
        await service().post(`/webhooks/endpoints/${mine.id}/secret/rotate`, undefined, { token: stranger.token }),
        await service().request('DELETE', `/webhooks/endpoints/${mine.id}`, undefined, { token: stranger.token }),
      ];
      for (const answer of attempts) {
        expect(answer.status, answer.text).toBe(404);
        expect(answer.body.errors).toEqual([notFound]);
      }
      const still = await service().get(`/webhooks/endpoints/${mine.id}`, { token: owner.token });
      expect(still.body).toMatchObject({ id: mine.id, url: mine.url, enabled: true });
      // Its secret still signs its callbacks: the rotation attempt changed nothing.
      const target = new URL(mine.url).pathname;
      await record(service(), owner, 'payment.status_changed', []);
      await receiver.waitFor(() => receiver.at(target).length >= 1, 10_000, "the owner's callback");
      expect(String(receiver.at(target)[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
      verify(mine.webhook_secret, receiver.at(target)[0]!);
      // And the stranger's events never reach the owner's endpoint.
      const before = receiver.at(target).length;
      const strangers = await record(service(), stranger, 'payment.status_changed', []);
      await waitForEvent(service(), stranger, strangers.id, (e) => e.status === 'delivered');
      expect(receiver.at(target)).toHaveLength(before);
    });

    it('refuses bad input with the catalogue codes, and a 17th endpoint', async () => {
      const m = await service().merchant();
      const url = `${receiver.url}${path('valid')}`;
      const cases: [Record<string, unknown>, string][] = [
        [{ enabled_events: ['*'] }, '00.01.0001'],
        [{ url: 'ftp://example.com/hook', enabled_events: ['*'] }, '00.01.0003'],
        [{ url: 'not a url', enabled_events: ['*'] }, '00.01.0003'],
        [{ url, enabled_events: ['payment.paid'] }, '00.01.0005'],
        [{ url, enabled_events: [] }, '00.01.0006'],
        [{ url, enabled_events: '*' }, '00.01.0002'],
        [{ url: `${url}/${'x'.repeat(2100)}`, enabled_events: ['*'] }, '00.01.0004'],
      ];
      for (const [body, code] of cases) {
        const answer = await service().post('/webhooks/endpoints', body, { token: m.token });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.errors.map((e: any) => e.code), JSON.stringify(body)).toContain(code);
      }
      expect((await service().post('/webhooks/endpoints', { url, enabled_events: ['*'] })).status).toBe(401);
      expect((await service().get('/webhooks/endpoints/not-a-uuid', { token: m.token })).body.errors[0].code).toBe('07.03.0001');
      const created = await createEndpoint(service(), m, { url, enabled_events: ['*'] });
      const badChange = await service().request('PATCH', `/webhooks/endpoints/${created.id}`, { enabled_events: ['nope'] }, { token: m.token });
      expect(badChange.status).toBe(400);
      expect(badChange.body.errors[0].code).toBe('00.01.0005');
      expect((await service().get('/webhooks/endpoints', { token: m.token })).body.endpoints).toHaveLength(1);

      // A private address is accepted in sandbox with the warning a notification URL gets (live mode refuses it).
      const privateUrl = await service().post('/webhooks/endpoints', { url: 'http://10.0.0.5/hooks', enabled_events: ['*'] }, { token: m.token });
      expect(privateUrl.status, privateUrl.text).toBe(201);
      expect(privateUrl.body.warnings).toEqual([{ field: 'url', description: expect.stringMatching(/^url: 10\.0\.0\.5 is a private address\. Live mode refuses it/) }]);
      expect(created).not.toHaveProperty('warnings');

      for (let i = 2; i < 16; i++) await createEndpoint(service(), m, { url: `${url}/${i}`, enabled_events: ['*'] });
      const tooMany = await service().post('/webhooks/endpoints', { url, enabled_events: ['*'] }, { token: m.token });
      expect(tooMany.status).toBe(409);
      expect(tooMany.body.errors).toEqual([
        { code: '07.03.0002', description: 'The merchant has 16 webhook endpoints, the most it may have: delete one (or change its URL and event types) first.' },
      ]);
      expect((await service().get('/webhooks/endpoints', { token: m.token })).body.endpoints).toHaveLength(16);
      // The limit is the merchant's own: another merchant still creates one.
      const other = await service().merchant('Other');
      await createEndpoint(service(), other, { url, enabled_events: ['*'] });
    });

    it('sends each event to the matching enabled endpoints, signed with their own secrets, beside the notification URL', async () => {
      const m = await service().merchant();
      const paths = { payments: path('payments'), refunds: path('refunds'), disabled: path('disabled'), all: path('all'), request: path('request') };
      const payments = await createEndpoint(service(), m, { url: `${receiver.url}${paths.payments}`, enabled_events: ['payment.status_changed'] });
      await createEndpoint(service(), m, { url: `${receiver.url}${paths.refunds}`, enabled_events: ['refund.status_changed', 'payout.status_changed'] });
      await createEndpoint(service(), m, { url: `${receiver.url}${paths.disabled}`, enabled_events: ['*'], enabled: false });
      const all = await createEndpoint(service(), m, { url: `${receiver.url}${paths.all}`, enabled_events: ['*'] });

      const ids = await customerWithCard(service(), m);
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { notification_url: `${receiver.url}${paths.request}` }), { token: m.token });
      expect(sent.status, sent.text).toBe(200);
      const statuses = (target: string, secret: string) => receiver.at(target).map((c) => verify(secret, c).data.status);
      await receiver.waitFor(
        () => [paths.payments, paths.all, paths.request].every((p) => receiver.at(p).length >= 2),
        10_000,
        'PROCESSING and PAID at both endpoints and at the notification URL',
      );
      expect(statuses(paths.payments, payments.webhook_secret)).toEqual(['PROCESSING', 'PAID']);
      expect(statuses(paths.all, all.webhook_secret)).toEqual(['PROCESSING', 'PAID']);
      // The notification URL still gets the merchant's own signature, as before endpoints existed.
      expect(statuses(paths.request, m.webhook_secret)).toEqual(['PROCESSING', 'PAID']);

      // Each body is what the OpenAPI document's webhooks section declares for its type.
      const doc = (await service().get('/openapi.json')).body;
      expect(doc.webhooks['payment.status_changed'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PaymentStatusChangedEvent' });
      const ajv = new Ajv({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ $id: 'openapi', components: doc.components });
      const validate = ajv.getSchema('openapi#/components/schemas/PaymentStatusChangedEvent')!;
      for (const callback of receiver.at(paths.payments)) expect(validate(JSON.parse(callback.body)), JSON.stringify(validate.errors)).toBe(true);
      expect(validate({ ...JSON.parse(receiver.at(paths.payments)[0]!.body), type: 'refund.status_changed' })).toBe(false);

      // Each target verifies with its own secret only.
      const atPayments = receiver.at(paths.payments)[0]!;
      expect(() => verify(m.webhook_secret, atPayments)).toThrow(WebhookVerificationError);
      expect(() => verify(all.webhook_secret, atPayments)).toThrow(WebhookVerificationError);
      expect(() => verify(payments.webhook_secret, receiver.at(paths.request)[0]!)).toThrow(WebhookVerificationError);
      // One event, one webhook-id and body everywhere.
      expect(atPayments.headers['webhook-id']).toBe(receiver.at(paths.request)[0]!.headers['webhook-id']);
      expect(atPayments.body).toBe(receiver.at(paths.request)[0]!.body);

      // The log shows one delivery per target, each with its endpoint.
      const eventId = atPayments.headers['webhook-id'] as string;
      const event = await waitForEvent(service(), m, eventId, (e) => e.status === 'delivered');
      expect(event.deliveries.map((d: any) => [d.url, d.endpoint_id]).sort()).toEqual(
        [
          [`${receiver.url}${paths.request}`, null],
          [`${receiver.url}${paths.payments}`, payments.id],
          [`${receiver.url}${paths.all}`, all.id],
        ].sort(),
      );
      // The filter that does not take payments, and the disabled endpoint, got nothing.
      await sleep(300);
      expect(receiver.at(paths.refunds)).toHaveLength(0);
      expect(receiver.at(paths.disabled)).toHaveLength(0);

      // A refund event reaches the refunds endpoint and the catch-all, not the payments one.
      const before = receiver.at(paths.payments).length;
      const refund = await record(service(), m, 'refund.status_changed', []);
      await receiver.waitFor(() => receiver.at(paths.refunds).length === 1 && receiver.at(paths.all).length === 3, 10_000, 'the refund at two endpoints');
      expect(receiver.at(paths.refunds)[0]!.headers['webhook-id']).toBe(refund.id);
      await waitForEvent(service(), m, refund.id, (e) => e.status === 'delivered' && e.deliveries.length === 2);
      expect(receiver.at(paths.payments)).toHaveLength(before);
    });

    it('no longer marks an event skipped when an endpoint received it, and still does when none took it', async () => {
      const m = await service().merchant();
      const target = path('only-endpoint');
      await createEndpoint(service(), m, { url: `${receiver.url}${target}`, enabled_events: ['dispute.status_changed'] });
      const taken = await record(service(), m, 'dispute.status_changed', []);
      const event = await waitForEvent(service(), m, taken.id, (e) => e.status === 'delivered');
      expect(event.deliveries).toHaveLength(1);
      const ignored = await record(service(), m, 'payment.status_changed', []);
      expect((await eventOf(service(), m, ignored.id)).status).toBe('skipped');
      const skipped = await service().get('/webhooks/events?status=skipped', { token: m.token });
      expect(skipped.body.events.map((e: any) => e.id)).toEqual([ignored.id]);
      const delivered = await service().get('/webhooks/events?status=delivered', { token: m.token });
      expect(delivered.body.events.map((e: any) => e.id)).toEqual([taken.id]);
    });

    it('sends nothing to a disabled endpoint: new events skip it and its pending callbacks are given up', async () => {
      const m = await service().merchant();
      const target = path('failing');
      receiver.on(target, () => ({ status: 503 }));
      const endpoint = await createEndpoint(service(), m, { url: `${receiver.url}${target}`, enabled_events: ['*'] });
      const first = await record(service(), m, 'payment.status_changed', []);
      await receiver.waitFor(() => receiver.at(target).length >= 1, 10_000, 'a failing attempt');
      const disabled = await service().request('PATCH', `/webhooks/endpoints/${endpoint.id}`, { enabled: false }, { token: m.token });
      expect(disabled.status, disabled.text).toBe(200);
      const event = await waitForEvent(service(), m, first.id, (e) => e.status === 'failed');
      expect(event.deliveries[0]).toMatchObject({ endpoint_id: endpoint.id, status: 'failed', next_attempt_at: null });
      const row = await service().ctx.db.selectFrom('webhook_deliveries').select('last_error').where('event_id', '=', first.id).executeTakeFirstOrThrow();
      expect(row.last_error).toBe('not sent: the webhook endpoint was disabled');
      const later = await record(service(), m, 'payment.status_changed', []);
      expect((await eventOf(service(), m, later.id)).status).toBe('skipped');
      // An attempt in flight at the moment may still land; after it, nothing more.
      await sleep(200);
      const count = receiver.at(target).length;
      await sleep(500);
      expect(receiver.at(target)).toHaveLength(count);
      // A retry by hand leaves the disabled endpoint alone too.
      const retried = await service().post(`/webhooks/events/${first.id}/retry`, undefined, { token: m.token });
      expect(retried.body.deliveries[0].status).toBe('failed');
    });

    it("keeps one resource's callbacks in order per endpoint, and follows a new URL", async () => {
      const m = await service().merchant();
      const target = path('ordered');
      receiver.on(target, (_request, seenBefore) => ({ status: seenBefore === 0 ? 500 : 200 }));
      const endpoint = await createEndpoint(service(), m, { url: `${receiver.url}${target}`, enabled_events: ['*'] });
      const resource = `res-${randomBytes(4).toString('hex')}`;
      const a = await record(service(), m, 'payment.status_changed', [], resource, 'PROCESSING');
      const b = await record(service(), m, 'payment.status_changed', [], resource, 'PAID');
      await waitForEvent(service(), m, b.id, (e) => e.status === 'delivered');
      const delivered = receiver.at(target).filter((c) => c.status === 200).map((c) => c.headers['webhook-id']);
      expect(delivered).toEqual([a.id, b.id]);
      // Every attempt of the first ended before the second was sent.
      const firstOfB = receiver.at(target).findIndex((c) => c.headers['webhook-id'] === b.id);
      expect(receiver.at(target).slice(firstOfB).every((c) => c.headers['webhook-id'] === b.id)).toBe(true);

      // A changed URL takes the next callbacks.
      const moved = path('moved');
      await service().request('PATCH', `/webhooks/endpoints/${endpoint.id}`, { url: `${receiver.url}${moved}` }, { token: m.token });
      const c = await record(service(), m, 'payment.status_changed', [], resource, 'REFUNDED');
      await receiver.waitFor(() => receiver.at(moved).length === 1, 10_000, 'the callback at the new URL');
      verify(endpoint.webhook_secret, receiver.at(moved)[0]!);
      expect(receiver.at(moved)[0]!.headers['webhook-id']).toBe(c.id);
    });

    it("rotates an endpoint's secret: both sign during the overlap, the merchant's own secret is untouched", async () => {
      const m = await service().merchant();
      const target = path('rotated');
      const endpoint = await createEndpoint(service(), m, { url: `${receiver.url}${target}`, enabled_events: ['*'] });
      const rotated = await service().post(`/webhooks/endpoints/${endpoint.id}/secret/rotate`, undefined, { token: m.token });
      expect(rotated.status, rotated.text).toBe(200);
      expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
      expect(rotated.body.webhook_secret).not.toBe(endpoint.webhook_secret);
      const request = path('rotated-request');
      await record(service(), m, 'payment.status_changed', [`${receiver.url}${request}`]);
      await receiver.waitFor(() => receiver.at(target).length === 1 && receiver.at(request).length === 1, 10_000, 'both callbacks');
      const callback = receiver.at(target)[0]!;
      expect(String(callback.headers['webhook-signature']).split(' ')).toHaveLength(2);
      verify(rotated.body.webhook_secret, callback);
      verify(endpoint.webhook_secret, callback);
      // The notification URL is signed with the merchant's one secret, as before.
      expect(String(receiver.at(request)[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
      verify(m.webhook_secret, receiver.at(request)[0]!);
    });
  },
  { env: { COLIBRI_CALLBACK_RETRY_BASE_MS: '50', COLIBRI_CALLBACK_RETRY_WINDOW_MS: '1000', COLIBRI_CALLBACK_TIMEOUT_MS: '2000', COLIBRI_CLAIM_INTERVAL_MS: '10' } },
);
