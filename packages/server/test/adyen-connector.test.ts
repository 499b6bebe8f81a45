import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_REFUSAL_REASONS } from '../src/connectors/adyen/adyen-codes';
import { OUTCOME_CODES } from '../src/processor/outcome-codes';
import { ProcessorPendingError } from '../src/processor/processor';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { ADYEN_REFUSALS, AdyenFake } from './fakes/adyen-fake';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

const MASTER_KEY = Buffer.alloc(32, 11).toString('base64');
const CARD = { number: '4111111111111111', expMonth: 3, expYear: 2030, holderName: 'MARIA SILVA', scheme: 'VISA' as const };

async function waitForRefund(service: TestService, m: TestMerchant, id: number, until: (s: string) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await service.get(`/refund/${id}`, { token: m.token });
    if (until(response.body.refund_status)) return response.body;
    if (Date.now() > deadline) throw new Error(`refund ${id} still ${response.body.refund_status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const statusOf = async (service: TestService, m: TestMerchant, token: string) =>
  (await service.get(`/transactionDetails/${token}`, { token: m.token })).body.general_info.transaction_status as string;

for (const engine of ENGINES) {
  describe(`Adyen card connector in live mode [${engine}]`, () => {
    let fake: AdyenFake;
    let service: TestService;
    let notifications: string;

    beforeAll(async () => {
      fake = await new AdyenFake().start();
      service = await startTestService(engine, { env: { COLIBRI_MODE: 'live', COLIBRI_MASTER_KEY: MASTER_KEY, ...fake.env(800) } });
      notifications = `${service.baseUrl}/connectors/adyen/notifications`;
    });
    afterAll(async () => {
      await service?.close();
      await fake?.stop();
    });

    it('verifies the card, pre-authorises, captures part on notification and refunds on notification', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      const verify = fake.received.find((r) => r.path === '/v72/payments' && (r.body.amount as { value: number }).value === 0);
      expect(verify?.body.paymentMethod).toMatchObject({ type: 'scheme', number: '4111111111111111', cvc: '123', expiryMonth: '12', expiryYear: '2035' });

      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '200.00', delay_capture: true } }), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const token = sent.body.payment_token as string;
      await waitForStatus(service, m, token, settled);
      expect(await statusOf(service, m, token)).toBe('PRE_AUTHORIZED');
      const authorisation = fake.received.find((r) => r.body.reference === `${token}:authorize`)!;
      expect(authorisation.idempotencyKey).toBe(`${token}:authorize`);
      expect(authorisation.body).toMatchObject({ amount: { currency: 'BRL', value: 20000 }, additionalData: { manualCapture: 'true', authorisationType: 'PreAuth' } });
      const payment = [...fake.payments.values()].find((p) => p.reference === `${token}:authorize`)!;

      // The capture is accepted ("received"); the payment waits, PROCESSING, for Adyen's CAPTURE notification.
      const capture = await service.post(`/checkout/${token}/capture`, { amount: 150 }, { token: m.token });
      expect(capture.status, JSON.stringify(capture.body)).toBe(200);
      const deadline = Date.now() + 5_000;
      while (!fake.modifications.some((mod) => mod.kind === 'capture' && mod.paymentPspReference === payment.pspReference)) {
        if (Date.now() > deadline) throw new Error('capture never reached the fake');
        await new Promise((r) => setTimeout(r, 25));
      }
      const captured = fake.modifications.find((mod) => mod.kind === 'capture' && mod.paymentPspReference === payment.pspReference)!;
      expect(captured.amount).toEqual({ currency: 'BRL', value: 15000 });
      await new Promise((r) => setTimeout(r, 300));
      expect(await statusOf(service, m, token)).toBe('PROCESSING');
      const accepted = await fake.notify(notifications, [fake.modificationItem(captured)]);
      expect(accepted).toEqual({ status: 200, text: '[accepted]' });
      const paid = await waitForStatus(service, m, token, (s) => s !== 'PROCESSING', 5_000);
      expect(paid.general_info.transaction_status).toBe('PAID');

      const refund = await service.post('/refund', { payment_token: token, amount: 50 }, { token: m.token });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      expect(refund.body.refund_status).toBe('PROCESSING');
      const refunded = fake.modifications.find((mod) => mod.kind === 'refund' && mod.paymentPspReference === payment.pspReference)!;
      expect(refunded).toMatchObject({ amount: { currency: 'BRL', value: 5000 }, reference: `${token}:refund:${refund.body.refund_id}` });
      await new Promise((r) => setTimeout(r, 300));
      expect((await service.get(`/refund/${refund.body.refund_id}`, { token: m.token })).body.refund_status).toBe('PROCESSING');

      // A badly signed notification is refused and changes nothing.
      const forged = await fake.notify(notifications, [fake.modificationItem(refunded)].map((item) => forge(item)));
      expect(forged.status).toBe(401);
      expect(JSON.parse(forged.text)).toMatchObject({ status: 401, message: 'Access Denied' });
      await new Promise((r) => setTimeout(r, 200));
      expect((await service.get(`/refund/${refund.body.refund_id}`, { token: m.token })).body.refund_status).toBe('PROCESSING');

      // Delivered twice (Adyen retries until it hears [accepted]): applied once.
      const item = fake.modificationItem(refunded);
      expect((await fake.notify(notifications, [item, item])).status).toBe(200);
      expect((await fake.notify(notifications, [item])).status).toBe(200);
      const done = await waitForRefund(service, m, refund.body.refund_id, (s) => s === 'COMPLETED' || s === 'FAILED');
      expect(done.refund_status).toBe('COMPLETED');
      await new Promise((r) => setTimeout(r, 200));
      const row = await service.ctx.db.selectFrom('payments').select(['status', 'refunded_minor', 'captured_minor']).where('payment_token', '=', token).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'PARTIALLY_REFUNDED', refunded_minor: 5000n, captured_minor: 15000n });
      // An older notification arriving late (the AUTHORISATION) changes nothing that was settled.
      const late = fake.item({ eventCode: 'AUTHORISATION', success: false, pspReference: payment.pspReference, merchantReference: `${token}:authorize`, amount: payment.amount, reason: 'Refused' });
      expect((await fake.notify(notifications, [late])).status).toBe(200);
      expect(await service.ctx.connectors.status(m.merchant_id, `${token}:authorize`, 'CREDITCARD')).toEqual({ status: 'APPROVED', processorId: payment.pspReference });
      expect(fake.received.every((r) => r.problems.length === 0)).toBe(true);
    });

    it('voids a pre-authorisation on its CANCELLATION notification', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '40.00', delay_capture: true } }), { token: m.token });
      const token = sent.body.payment_token as string;
      await waitForStatus(service, m, token, settled);
      const cancel = await service.post(`/checkout/${token}/cancel`, {}, { token: m.token });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
      const deadline = Date.now() + 5_000;
      let voided;
      while (!(voided = fake.modifications.find((mod) => mod.kind === 'cancel' && mod.reference.startsWith(`${token}:cancel:`)))) {
        if (Date.now() > deadline) throw new Error('cancel never reached the fake');
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(await statusOf(service, m, token)).toBe('PROCESSING');
      expect((await fake.notify(notifications, [fake.modificationItem(voided)])).status).toBe(200);
      expect((await waitForStatus(service, m, token, (s) => s !== 'PROCESSING', 5_000)).general_info.transaction_status).toBe('CANCELED');
    });

    it('authorises a debit card with its 3DS data and captures at once', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m, '5555555555554444');
      // A Mastercard: 02 is its ECI for an authenticated cardholder.
      const authentication = { cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', eci: '02', version: '2.2.0', dstrans_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' };
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { method: 'DEBITCARD' }, authentication }), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const details = await waitForStatus(service, m, sent.body.payment_token, settled);
      expect(details.general_info.transaction_status).toBe('PAID');
      const request = fake.received.find((r) => r.body.reference === `${sent.body.payment_token}:authorize`)!;
      expect(request.body).toMatchObject({
        captureDelayHours: 0,
        paymentMethod: { fundingSource: 'debit', type: 'scheme' },
        mpiData: { cavv: authentication.cavv, eci: '02', dsTransID: authentication.dstrans_id, threeDSVersion: '2.2.0', authenticationResponse: 'Y', directoryResponse: 'Y' },
      });
      expect(request.problems).toEqual([]);

      // An attempt (ECI 01 for Mastercard) travels as transStatus A.
      const attempted = { ...authentication, eci: '01', dstrans_id: 'a8d9f0e1-2b3c-4d5e-8f70-8192a3b4c5d6' };
      const second = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { method: 'DEBITCARD' }, authentication: attempted }), { token: m.token });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      await waitForStatus(service, m, second.body.payment_token, settled);
      const attemptRequest = fake.received.find((r) => r.body.reference === `${second.body.payment_token}:authorize`)!;
      expect(attemptRequest.body.mpiData).toMatchObject({ eci: '01', authenticationResponse: 'A', directoryResponse: 'A' });
    });

    it('translates every refusal reason into its documented Colibri code', async () => {
      const m = await service.merchant();
      const connector = await service.ctx.connectors.connectorFor(m.merchant_id, 'CREDITCARD');
      for (const [name, adyenCode] of Object.entries(ADYEN_REFUSALS)) {
        const reference = `refusal-${adyenCode}-${Date.now()}`;
        const result = await connector.authorize({ merchantId: m.merchant_id, reference, card: { ...CARD, holderName: name }, amountMinor: 1000n, currency: 'BRL', installments: 1, capture: true });
        const code = ADYEN_REFUSAL_REASONS[adyenCode]!;
        expect(result, name).toEqual({ status: code === '96' ? 'ERROR' : 'DECLINED', code, description: OUTCOME_CODES[code] });
        // The outcome is on record: a retry asks and gets the same answer without calling Adyen.
        expect(await connector.status(m.merchant_id, reference)).toEqual(result);
      }
    });

    it('leaves the payment PROCESSING through a timeout and a 5xx, then settles it once by resending the same Idempotency-Key', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      for (const fault of ['TIMEOUT_AFTER_PROCESSING', 'HTTP_500_AFTER_PROCESSING', 'HTTP_500_BEFORE_PROCESSING'] as const) {
        fake.faults.push(fault);
        const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids), { token: m.token });
        expect(sent.status).toBe(200);
        const token = sent.body.payment_token as string;
        await new Promise((r) => setTimeout(r, 400));
        expect(await statusOf(service, m, token), fault).toBe('PROCESSING');
        const details = await waitForStatus(service, m, token, settled, 10_000);
        expect(details.general_info.transaction_status, fault).toBe('PAID');
        const attempts = fake.received.filter((r) => r.body.reference === `${token}:authorize`);
        expect(attempts.length, fault).toBeGreaterThanOrEqual(2);
        expect(new Set(attempts.map((a) => a.idempotencyKey))).toEqual(new Set([`${token}:authorize`]));
        expect([...fake.payments.values()].filter((p) => p.reference === `${token}:authorize`), fault).toHaveLength(fault === 'HTTP_500_BEFORE_PROCESSING' ? 1 : 1);
      }
    });

    it('settles a refund whose notification arrives before its answer', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '80.00' } }), { token: m.token });
      const token = sent.body.payment_token as string;
      await waitForStatus(service, m, token, settled);
      fake.faults.push('TIMEOUT_AFTER_PROCESSING');
      const refund = await service.post('/refund', { payment_token: token }, { token: m.token });
      expect(refund.status, JSON.stringify(refund.body)).toBe(200);
      expect(refund.body.refund_status).toBe('PROCESSING');
      const modification = fake.modifications.find((mod) => mod.reference === `${token}:refund:${refund.body.refund_id}`)!;
      expect((await fake.notify(notifications, [fake.modificationItem(modification)])).status).toBe(200);
      const done = await waitForRefund(service, m, refund.body.refund_id, (s) => s !== 'PROCESSING');
      expect(done.refund_status).toBe('COMPLETED');
      expect(await statusOf(service, m, token)).toBe('REFUNDED');
      // The connector answers the retry from its books: settled, so the lost "received" never undoes it.
      await expect(service.ctx.connectors.status(m.merchant_id, `${token}:refund:${refund.body.refund_id}`, 'CREDITCARD')).resolves.toMatchObject({ status: 'APPROVED' });
    });

    it('fails a refund that Adyen rejects by notification, with Colibri code', async () => {
      const m = await service.merchant();
      const ids = await customerWithCard(service, m);
      const sent = await service.post('/checkout/sendPayment', paymentBody(m, ids, { payment: { amount: '30.00' } }), { token: m.token });
      const token = sent.body.payment_token as string;
      await waitForStatus(service, m, token, settled);
      const refund = await service.post('/refund', { payment_token: token }, { token: m.token });
      const modification = fake.modifications.find((mod) => mod.reference === `${token}:refund:${refund.body.refund_id}`)!;
      await expect(service.ctx.connectors.status(m.merchant_id, modification.reference, 'CREDITCARD')).rejects.toBeInstanceOf(ProcessorPendingError);
      expect((await fake.notify(notifications, [fake.modificationItem(modification, false)])).status).toBe(200);
      const failed = await waitForRefund(service, m, refund.body.refund_id, (s) => s !== 'PROCESSING');
      expect(failed).toMatchObject({ refund_status: 'FAILED' });
      const row = await service.ctx.db.selectFrom('refunds').select(['error_code', 'error_description']).where('refund_id', '=', BigInt(refund.body.refund_id)).executeTakeFirstOrThrow();
      expect(row).toEqual({ error_code: 'REFUND_REJECTED', error_description: OUTCOME_CODES.REFUND_REJECTED });
    });

    it('refuses methods without a connector per request, and has no sandbox controls', async () => {
      const m = await service.merchant();
      const pix = await service.post('/checkout/generate', { contractId: m.contract_id, amount: '10.00', asset: 'BRL', method: 'PIX', referenceId: 'order-1' }, { token: m.token });
      expect(pix.status, JSON.stringify(pix.body)).toBe(422);
      expect(pix.body.errors).toEqual([{ code: '00.03.0002', description: 'PIX has no processor connector in live mode; ask the operator to configure one (docs/connectors.md).' }]);
      const boleto = await service.post('/checkout/generate', { contractId: m.contract_id, amount: '10.00', asset: 'BRL', method: ['CREDITCARD', 'BOLETO'], referenceId: 'order-2' }, { token: m.token });
      expect(boleto.body.errors?.[0]?.code).toBe('00.03.0002');
      expect(await service.ctx.db.selectFrom('checkout_sessions').select('checkout_id').where('merchant_id', '=', m.merchant_id).execute()).toEqual([]);
      const payout = await service.post('/payoutTransaction', { payoutTransactions: [{}] }, { token: m.token });
      expect(payout.body.errors?.[0]?.code, JSON.stringify(payout.body)).toBe('00.03.0002');
      const sandbox = await service.post('/sandbox/clock/advance', { seconds: 1 }, { token: m.token });
      expect(sandbox.status).toBe(404);
    });

    it("stores a merchant's own credentials encrypted and routes its payments with them", async () => {
      const m = await service.merchant();
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const wrongKey = 'AQE_merchant_own_key_that_the_fake_refuses';
      const put = await service.request('PUT', `/admin/merchants/${m.merchant_id}/connectors/CREDITCARD`, { connector: 'adyen', credentials: { api_key: wrongKey } }, admin);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toMatchObject({ method: 'CREDITCARD', connector: 'adyen', credential_keys: ['api_key'] });
      const row = await service.ctx.db.selectFrom('merchant_connectors').selectAll().where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
      expect(row.credentials_ciphertext).not.toContain(wrongKey);
      expect(Buffer.from(row.credentials_ciphertext, 'base64').toString('latin1')).not.toContain(wrongKey);
      const listed = await service.request('GET', `/admin/merchants/${m.merchant_id}/connectors`, undefined, admin);
      expect(JSON.stringify(listed.body)).not.toContain(wrongKey);

      // Its card verification now goes out with its own key, which Adyen (the fake) refuses.
      const person = await service.post('/checkout/person', { name: 'Ana Souza', email: 'ana@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, { token: m.token });
      const card = await service.post('/checkout/card', { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA SOUZA' }, { token: m.token });
      expect(card.status).toBe(400);
      const bad = await service.request('PUT', `/admin/merchants/${m.merchant_id}/connectors/CREDITCARD`, { connector: 'sandbox', credentials: {} }, admin);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toEqual({ code: '00.03.0004', description: 'connector: sandbox exists only in sandbox mode.' });
      const unknown = await service.request('PUT', `/admin/merchants/${m.merchant_id}/connectors/CREDITCARD`, { connector: 'adyen', credentials: { password: 'x' } }, admin);
      expect(unknown.status).toBe(400);

      expect((await service.request('DELETE', `/admin/merchants/${m.merchant_id}/connectors/CREDITCARD`, undefined, admin)).status).toBe(200);
      const again = await service.post('/checkout/card', { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA SOUZA' }, { token: m.token });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    });
  });
}

/** The same item with its signature computed under another key. */
function forge(item: Record<string, unknown>): Record<string, unknown> {
  const inner = item.NotificationRequestItem as { additionalData: { hmacSignature: string } };
  return { NotificationRequestItem: { ...inner, additionalData: { hmacSignature: Buffer.from('not the signature, but 32 bytes!').toString('base64') } } };
}
