import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERRORS } from '../src/http/errors';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { generateBody } from './checkout-fixtures';
import { customerWithCard, paymentBody } from './fixtures';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';

/** Callback targets at input and at delivery (CONTRACTS.md "callback targets", issue 16.8 and 21.4). */

const ALLOWED = 'hooks.allowed.internal';

/** Addresses live mode refuses, each with the class its field error names. */
const REFUSED_IN_LIVE: readonly [string, RegExp][] = [
  ['http://127.0.0.1:4000/cb', /loopback address/],
  ['http://localhost:3000/cb', /loopback name/],
  ['http://[::1]/cb', /loopback address/],
  ['http://[::ffff:0:7f00:1]/cb', /loopback address/],
  ['http://[::ffff:7f00:1]/cb', /loopback address/],
  ['http://2130706433/cb', /127\.0\.0\.1 is a loopback address/],
  ['http://10.0.0.5/cb', /private address/],
  ['http://192.168.1.10/cb', /private address/],
  ['http://169.254.169.254/latest/meta-data', /metadata address/],
  ['http://[fd00:ec2::254]/', /metadata address/],
  ['http://[fe80::1]/cb', /link-local address/],
  ['http://metadata.google.internal/computeMetadata/v1', /name only a local network resolves/],
  ['http://printer.local/cb', /name only a local network resolves/],
  ['http://intranet/cb', /name only a local network resolves/],
];

function payoutItem(merchant: TestMerchant, notificationUrl: string) {
  const example = PAYOUT_EXAMPLES[0];
  if (!example) throw new Error('no payout example');
  return { ...structuredClone(example.item as Record<string, unknown>), contract_id: merchant.payout_contract_id, reference_id: `p-${randomUUID().slice(0, 8)}`, notification_url: notificationUrl };
}

async function paymentsOf(service: TestService, merchant: TestMerchant): Promise<number> {
  return (await service.ctx.db.selectFrom('payments').select('payment_token').where('merchant_id', '=', merchant.merchant_id).execute()).length;
}

describeEachEngine(
  'callback targets, live mode',
  (service) => {
    it('refuses loopback, private, link-local and metadata notification URLs at input with a field error', async () => {
      const m = await service().merchant();
      for (const [url, reason] of REFUSED_IN_LIVE) {
        const response = await service().post('/checkout/sendPayment', paymentBody(m, { personId: randomUUID(), cardId: randomUUID() }, { notification_url: url }), { token: m.token });
        expect(response.status, url).toBe(400);
        expect(response.body.errors, url).toHaveLength(1);
        expect(response.body.errors[0].code).toBe(ERRORS.CALLBACK_TARGET_REFUSED.code);
        expect(response.body.errors[0].description).toMatch(/^notification_url: /);
        expect(response.body.errors[0].description, url).toMatch(reason);
      }
      expect(await paymentsOf(service(), m)).toBe(0);
    });

    it('checks every field that takes a callback URL, naming each', async () => {
      const m = await service().merchant();
      const checkout = await service().post(
        '/checkout/generate',
        generateBody(m, { notificationUrl: 'http://127.0.0.1/cb', checkoutNotificationUrl: 'http://10.9.9.9/cb', successUrl: 'http://127.0.0.1/ok' }),
        { token: m.token },
      );
      expect(checkout.status).toBe(400);
      // successUrl is followed by the shopper's browser, never called by Colibri: not checked.
      expect(checkout.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
        [ERRORS.CALLBACK_TARGET_REFUSED.code, 'notificationUrl'],
        [ERRORS.CALLBACK_TARGET_REFUSED.code, 'checkoutNotificationUrl'],
      ]);
      const subscription = await service().post(
        '/subscriptions',
        { public_person_id: randomUUID(), public_card_id: randomUUID(), amount_type: 'FIXED', amount: '10.00', asset: 'BRL', interval: 'MONTHLY', first_due_date: '2030-01-01', notification_url: 'http://[::1]:9000/s' },
        { token: m.token },
      );
      expect(subscription.status).toBe(400);
      expect(subscription.body.errors[0]).toMatchObject({ code: ERRORS.CALLBACK_TARGET_REFUSED.code, description: expect.stringMatching(/^notification_url: ::1 is a loopback address/) });
      const refund = await service().post('/refund', { payment_token: randomUUID(), notification_url: 'http://169.254.169.254/' }, { token: m.token });
      expect(refund.status).toBe(400);
      expect(refund.body.errors[0].code).toBe(ERRORS.CALLBACK_TARGET_REFUSED.code);
      const payouts = await service().post(
        '/payoutTransaction',
        { payoutTransactions: [payoutItem(m, 'https://merchant.example.com/cb'), payoutItem(m, 'http://192.168.0.1/cb')] },
        { token: m.token },
      );
      expect(payouts.status).toBe(400);
      expect(payouts.body.errors).toHaveLength(1);
      expect(payouts.body.errors[0].description).toMatch(/^payoutTransactions\[1\]\.notification_url: 192\.168\.0\.1 is a private address/);
      const stored = await service().ctx.db.selectFrom('payouts').select('tx_id').where('merchant_id', '=', m.merchant_id).execute();
      expect(stored).toHaveLength(0);
    });

    it('accepts public hosts and hosts in COLIBRI_CALLBACK_ALLOW_HOSTS, without warnings', async () => {
      const m = await service().merchant();
      for (const url of ['https://shop.example/cb', `http://${ALLOWED}:8443/cb`]) {
        // A card checkout: live mode has a card connector here, and no PIX one.
        const response = await service().post('/checkout/generate', generateBody(m, { notificationUrl: url, method: 'CREDITCARD' }), { token: m.token });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(response.body.warnings, url).toBeUndefined();
      }
    });
  },
  {
    env: {
      COLIBRI_MODE: 'live',
      COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
      // Live mode starts only with its card connector configured; nothing here reaches it (port 9).
      COLIBRI_ADYEN_API_KEY: 'test-key',
      COLIBRI_ADYEN_MERCHANT_ACCOUNT: 'ColibriTest',
      COLIBRI_ADYEN_HMAC_KEY: randomBytes(32).toString('hex'),
      COLIBRI_ADYEN_CHECKOUT_URL: 'http://127.0.0.1:9',
      COLIBRI_CALLBACK_RETRY_WINDOW_MS: String(72 * 3_600_000),
      COLIBRI_CALLBACK_ALLOW_HOSTS: ALLOWED,
    },
  },
);

describeEachEngine(
  'callback targets, sandbox mode',
  (service) => {
    let receiver: CallbackReceiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('accepts loopback with a warning and delivers callbacks to it with no allow list', async () => {
      expect(service().config.callbackAllowHosts).toEqual([ALLOWED]);
      const m = await service().merchant();
      const ids = await customerWithCard(service(), m);
      const url = `${receiver.url}/sandbox-loopback`;
      const response = await service().post('/checkout/sendPayment', paymentBody(m, ids, { notification_url: url }), { token: m.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.warnings).toEqual([
        { field: 'notification_url', description: expect.stringMatching(/^notification_url: 127\.0\.0\.1 is a loopback address\. Sandbox delivers callbacks to it; live mode refuses it/) },
      ]);
      await receiver.waitFor(() => receiver.at('/sandbox-loopback').some((c) => c.body.includes('"PAID"')), 10_000, 'the PAID callback on loopback');
      const callback = receiver.at('/sandbox-loopback')[0];
      expect(callback?.headers['webhook-signature']).toMatch(/^v1,/);
    });

    it('warns about what live mode would refuse, field by field, and stays silent otherwise', async () => {
      const m = await service().merchant();
      const checkout = await service().post(
        '/checkout/generate',
        generateBody(m, { notificationUrl: 'http://169.254.169.254/latest', checkoutNotificationUrl: 'https://shop.example/cb' }),
        { token: m.token },
      );
      expect(checkout.status).toBe(200);
      expect(checkout.body.warnings).toEqual([
        { field: 'notificationUrl', description: expect.stringMatching(/169\.254\.169\.254 is a metadata address\. Live mode refuses it, and callbacks to it are not delivered/) },
      ]);
      const quiet = await service().post('/checkout/generate', generateBody(m, { notificationUrl: 'https://shop.example/cb' }), { token: m.token });
      expect(quiet.body).not.toHaveProperty('warnings');
      const allowed = await service().post('/checkout/generate', generateBody(m, { notificationUrl: `http://${ALLOWED}/cb` }), { token: m.token });
      expect(allowed.body).not.toHaveProperty('warnings');
      const payouts = await service().post('/payoutTransaction', { payoutTransactions: [payoutItem(m, 'http://[::ffff:0:7f00:1]/p')] }, { token: m.token });
      expect(payouts.status, JSON.stringify(payouts.body)).toBe(200);
      expect(payouts.body.warnings).toEqual([{ field: 'payoutTransactions[0].notification_url', description: expect.stringMatching(/loopback address\. Sandbox delivers/) }]);
    });

    it('documents the warnings member in the OpenAPI answers of those routes', async () => {
      const doc = (await service().get('/openapi.json')).body;
      for (const path of ['/checkout/sendPayment', '/checkout/generate', '/subscriptions', '/refund', '/payoutTransaction']) {
        const answer = doc.paths[path].post.responses['200'].content['application/json'].schema;
        // A named answer is a component; its shape is there.
        const schema = answer.$ref ? doc.components.schemas[String(answer.$ref).split('/').pop() as string] : answer;
        expect(schema.properties.warnings, path).toBeDefined();
      }
      const capture = doc.paths['/checkout/{payment_token}/capture'].post.responses['200'].content['application/json'].schema;
      const captureSchema = capture.$ref ? doc.components.schemas[String(capture.$ref).split('/').pop() as string] : capture;
      expect(captureSchema.properties.warnings).toBeUndefined();
    });
  },
  { env: { COLIBRI_CALLBACK_ALLOW_HOSTS: ALLOWED } },
);
