import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidDigitableLine } from '../src/rails/boleto';
import { boletoEnv, newFolders } from './boleto-fixtures';
import { startBrowser, type BrowserKit } from './browser-kit';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The hosted page collects a boleto's payer in chromium, where a bank registers the merchant's boletos
 * (here the cnab connector, routed in sandbox mode) and the merchant gave no payer at generation.
 */
describe('the checkout page asks for the boleto payer', () => {
  let service: TestService;
  let kit: BrowserKit;
  let merchant: TestMerchant;
  let root: string;

  beforeAll(async () => {
    root = newFolders();
    service = await startTestService('pglite', { env: { COLIBRI_ROUTING: 'BOLETO=cnab', COLIBRI_BOLETO_SWEEP_MS: '3600000', ...boletoEnv(root) } });
    merchant = await service.merchant('Loja Boleto');
    kit = await startBrowser();
  });
  afterAll(async () => {
    await kit?.close();
    await service?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('checks the CPF and the CEP in the browser, then registers the boleto with the payer', async () => {
    const generated = await service.post('/checkout/generate', { contractId: merchant.contract_id, amount: '49.90', asset: 'BRL', method: ['PIX', 'BOLETO'], referenceId: `order-${Date.now()}`, expiresIn: 900 }, { token: merchant.token });
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const id = generated.body.checkout_id as string;
    const page = await kit.open(`${service.baseUrl}/pay/${id}?lang=pt`, { viewport: { width: 390, height: 844 }, locale: 'pt-BR' });
    const attempts: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/attempts')) attempts.push(request.postData() ?? '');
    });
    await page.click('[data-method="BOLETO"]');
    await page.waitForSelector('[data-view="boleto-payer"]');

    await page.fill('#payer-name', 'Joana Lima');
    await page.fill('#payer-tax_id', '529.982.247-24');
    await page.fill('#payer-postal_code', '0131010');
    await page.fill('#payer-street', 'Avenida Paulista');
    await page.fill('#payer-number', '1000');
    await page.fill('#payer-district', 'Bela Vista');
    await page.fill('#payer-city', 'São Paulo');
    await page.selectOption('#payer-state', 'SP');
    await page.click('#boleto-payer-form button[type=submit]');
    const errors = page.locator('#form-errors');
    await expect.poll(() => errors.textContent()).toContain('CPF ou CNPJ inválido');
    expect(await errors.textContent()).toContain('O CEP tem 8 dígitos');
    expect(await page.getAttribute('#payer-tax_id', 'aria-invalid')).toBe('true');
    // Nothing was sent: the browser refused the form.
    expect(attempts).toEqual([]);

    await page.fill('#payer-tax_id', '529.982.247-25');
    await page.fill('#payer-postal_code', '01310-100');
    await page.click('#boleto-payer-form button[type=submit]');
    await page.waitForSelector('[data-view="boleto"]');
    const line = await page.getAttribute('#digitable-line', 'data-digits');
    expect(isValidDigitableLine(line ?? '')).toBe(true);
    expect(attempts).toHaveLength(1);
    expect(JSON.parse(attempts[0]!)).toMatchObject({ method: 'BOLETO', payer: { tax_id: '529.982.247-25', postal_code: '01310-100', state: 'SP' } });

    const session = await service.get(`/checkout/${id}`, { token: merchant.token });
    const token = session.body.payments.find((p: { method: string }) => p.method === 'BOLETO').payment_token as string;
    const registration = await service.ctx.db.selectFrom('boleto_registrations').selectAll().where('payment_token', '=', token).executeTakeFirstOrThrow();
    expect(registration).toMatchObject({ payer_tax_id_type: 'CPF', payer_tax_id: '52998224725', payer_name: 'Joana Lima', payer_postal_code: '01310100', payer_state: 'SP', status: 'PENDING' });
    expect(kit.problems).toEqual([]);
  });
});
