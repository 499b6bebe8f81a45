import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FEE_PLAN } from '../src/fees/fee-plan';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';
import { settled, VALID_CPF, waitForStatus } from './fixtures';
import { authRequest, CARDS, payBody, tokenOf } from './three-ds-fixtures';

/**
 * The 3DS library end to end: the browser suite loads client-v1.0.min.js into Debian's Chromium from a
 * merchant page on another origin and walks every outcome of the contract's test cards (the API itself
 * is tested over HTTP on both engines in three-ds.test.ts). A missing Chromium fails the suite: it is
 * installed by .ci/run.
 */

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/3ds/', import.meta.url));

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

    it("hands installments beyond the merchant's plan to onError with the code and the field, before any authentication", async () => {
      const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
      const plan = { ...DEFAULT_FEE_PLAN, installment_plan: { max_installments: 6, merchant_funded: 3, monthly_rate_ppm: 19_900, merchant_fee_ppm_per_installment: 0 } };
      expect((await service.request('PUT', `/admin/merchants/${merchant.merchant_id}/fee-plan`, plan, admin)).status).toBe(200);
      try {
        const request = authRequest(CARDS.frictionless);
        const { result, events } = await pay({ ...request, paymentMethod: { ...request.paymentMethod, installments: 7 } });
        expect(result.status).toBe('ERROR');
        expect(result.error).toMatchObject({ code: '00.04.0017', fields: [{ field: 'paymentMethod.installments', message: "this merchant's plan offers at most 6 installments." }] });
        expect(events).toEqual([{ name: 'onError', data: result.error }]);
        const six = await pay({ ...request, paymentMethod: { ...request.paymentMethod, installments: 6 } });
        expect(six.result.status).toBe('SUCCESS');
      } finally {
        await service.request('PUT', `/admin/merchants/${merchant.merchant_id}/fee-plan`, DEFAULT_FEE_PLAN, admin);
      }
    });
  });
}
