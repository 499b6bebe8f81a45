import { existsSync, mkdirSync } from 'node:fs';
import { parsePix, hasError } from 'pix-utils';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digitableLineToBarcode, isValidBarcode, isValidDigitableLine } from '../src/rails/boleto';
import { startTestService, type TestMerchant, type TestService } from './harness';
import { febrabanCheck, generate } from './checkout-fixtures';

/**
 * The hosted checkout page in a real browser (Debian chromium through playwright-core), on PGlite:
 * the API suite covers both engines, and the page's behaviour does not depend on the engine. When
 * chromium is missing the suite fails rather than skips: CI installs it, and a silent skip would hide
 * a page that no longer works.
 */
const CHROMIUM = '/usr/bin/chromium';
/**
 * How long the page may take to show a payment's outcome: the processor's answer goes through the job
 * worker and reaches the page at its next poll (every 1.5 s). Alone this takes 2 to 7 s; with the whole
 * suite running on two cores it once took over 10 s.
 */
const OUTCOME_SHOWN_WITHIN_MS = 30_000;
const ARTIFACTS = new URL('../../../test-artifacts/checkout/', import.meta.url);

let service: TestService;
let browser: Browser;
let context: BrowserContext;
let merchant: TestMerchant;
const cspViolations: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  service = await startTestService('pglite');
  merchant = await service.merchant('Loja Exemplo');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  // A phone-sized screen (the page must work there) of a Brazilian shopper, whose browser asks for Portuguese.
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'pt-BR' });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.close();
});

async function open(url: string, within: BrowserContext = context): Promise<Page> {
  const page = await within.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|integrity/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(url);
  return page;
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

async function payFirstOpen(checkoutId: string, method: string): Promise<void> {
  const session = await service.get(`/checkout/${checkoutId}`, { token: merchant.token });
  const payment = session.body.payments.find((p: any) => p.method === method && p.transaction_status === 'CREATED');
  const paid = await service.post(`/sandbox/payments/${payment.payment_token}/pay`, undefined, { token: merchant.token });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
}

describe('hosted checkout page in chromium', () => {
  it('single-method PIX: QR code and copyable BR Code, countdown, then success and the redirect', async () => {
    const successUrl = `${service.baseUrl}/healthz?shop=success`;
    const created = await generate(service, merchant, { amount: '49.90', successUrl });
    const page = await open(created.checkout_url);
    await expect.poll(() => page.locator('.qr svg').count()).toBe(1);
    const brCode = await page.locator('#br-code').inputValue();
    const parsed = parsePix(brCode);
    expect(hasError(parsed), brCode).toBe(false);
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    await expect.poll(() => page.locator('[data-seconds-left]').textContent()).toMatch(/^(59|60):\d\d$/);
    await page.getByRole('button', { name: 'Copiar código' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Código copiado');
    await shot(page, 'pix-waiting');

    await payFirstOpen(created.checkout_id, 'PIX');
    await page.locator('[data-final="PAID"]').waitFor({ timeout: OUTCOME_SHOWN_WITHIN_MS });
    await shot(page, 'pix-paid');
    await page.waitForURL(successUrl, { timeout: 10_000 });
    await page.close();
  });

  it('multi-method: the declining card 4000000000000002, then PIX, then paid', async () => {
    const created = await generate(service, merchant, { method: 'ALL' });
    const page = await open(created.checkout_url);
    await page.locator('[data-view="choose"]').waitFor();
    await shot(page, 'multi-choose');
    await page.getByRole('link', { name: 'Cartão de crédito' }).click();
    await page.getByLabel('Nome completo').fill('Maria Silva');
    await page.getByLabel('E-mail').fill('maria@example.com');
    await page.getByLabel('CPF').fill('529.982.247-25');
    await page.getByLabel('Número do cartão').fill('4000000000000002');
    await expect.poll(() => page.locator('#card-scheme').textContent()).toContain('Visa');
    await page.getByLabel('Validade (MM/AA)').fill('12/35');
    await page.getByLabel('CVV').fill('123');
    await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
    // The merchant's plan (the default: 12, interest-free) as the buyer reads it; 100.00 / 3 = 33.33 (the last takes 33.34).
    const offered = await page.getByLabel('Parcelas').locator('option').allTextContents();
    expect(offered).toHaveLength(12);
    expect(offered[2]!.replace(/\u00a0/g, ' ')).toBe('3x de R$ 33,33 sem juros');
    await page.getByLabel('Parcelas').selectOption('3');
    await shot(page, 'multi-card-form');
    await page.getByRole('button', { name: /^Pagar/ }).click();
    // Declined: back to the selection screen with a notice, inside the same session.
    await page.locator('[data-view="choose"] .notice').waitFor({ timeout: OUTCOME_SHOWN_WITHIN_MS });
    await shot(page, 'multi-declined');
    expect((await service.get(`/checkout/${created.checkout_id}`, { token: merchant.token })).body.status).toBe('PROCESSING');

    await page.getByRole('button', { name: 'PIX' }).click();
    await page.locator('[data-view="pix"]').waitFor();
    await payFirstOpen(created.checkout_id, 'PIX');
    await page.locator('[data-final="PAID"]').waitFor({ timeout: OUTCOME_SHOWN_WITHIN_MS });
    await shot(page, 'multi-paid');
    await page.close();
  });

  it('boleto: the digitable line and the barcode agree, and the page prints only the boleto', async () => {
    const created = await generate(service, merchant, { method: 'BOLETO', amount: '250.00', expiresIn: 5 * 86_400 });
    const page = await open(created.checkout_url);
    const line = (await page.locator('#digitable-line').getAttribute('data-digits')) ?? '';
    const barcode = (await page.locator('[data-barcode]').getAttribute('data-barcode')) ?? '';
    expect(isValidDigitableLine(line)).toBe(true);
    expect(isValidBarcode(barcode)).toBe(true);
    expect(digitableLineToBarcode(line)).toBe(barcode);
    expect(febrabanCheck(await page.locator('#digitable-line').inputValue())).toEqual({ ok: true, barcode });
    expect(await page.locator('.barcode svg').count()).toBe(1);
    await shot(page, 'boleto');
    await page.emulateMedia({ media: 'print' });
    expect(await page.getByRole('button', { name: 'Imprimir boleto' }).isVisible()).toBe(false);
    expect(await page.locator('.barcode svg').isVisible()).toBe(true);
    await shot(page, 'boleto-print');
    await page.close();
  });

  it('an expired session: the page turns to "expired" when the merchant clock passes the expiry', async () => {
    const other = await service.merchant('Relojoaria');
    const created = await generate(service, other, { expiresIn: 60 });
    const page = await open(created.checkout_url);
    await page.locator('[data-view="pix"]').waitFor();
    await service.post('/sandbox/clock/advance', { seconds: 61 }, { token: other.token });
    await page.locator('[data-final="EXPIRED"]').waitFor({ timeout: 10_000 });
    expect(await page.getByRole('heading', { level: 1 }).textContent({ timeout: 2_000 })).toBe('Pagamento expirado');
    await shot(page, 'expired');
    await page.close();
  });

  it('the card form rejects a bad Luhn before submitting, in English with ?lang=en', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD' });
    const page = await open(`${created.checkout_url}?lang=en`);
    const cardRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/card')) cardRequests.push(request.url());
    });
    await page.getByLabel('Full name').fill('Maria Silva');
    await page.getByLabel('E-mail').fill('maria@example.com');
    await page.getByLabel('CPF (Brazilian tax id)').fill('529.982.247-25');
    await page.getByLabel('Card number').fill('4111 1111 1111 1112');
    await page.getByLabel('Expiry (MM/YY)').fill('12/35');
    await page.getByLabel('CVV').fill('123');
    await page.getByLabel('Name on card').fill('MARIA SILVA');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => page.locator('#form-errors').textContent()).toContain('Invalid card number');
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    // The error summary above the pay button takes the focus; its line leads to the field.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('form-errors');
    await shot(page, 'card-bad-luhn');
    expect(cardRequests).toEqual([]);
    await page.close();
  });

  it('debit card: 3DS challenge inside the page, in Portuguese, then paid and back to the shop', async () => {
    const successUrl = `${service.baseUrl}/healthz?shop=debit`;
    const created = await generate(service, merchant, { method: 'DEBITCARD', amount: '75.00', successUrl });
    // The attempt started at generation: its payment waits for the card typed below.
    expect(created).toMatchObject({ status: 'PROCESSING', payment: { method: 'DEBITCARD', transaction_status: 'CREATED' } });
    const page = await open(created.checkout_url);
    await page.locator('[data-view="card"][data-card-method="DEBITCARD"]').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cartão de débito');
    // Debit pays at once: no installments.
    expect(await page.locator('#installments').count()).toBe(0);
    await page.getByLabel('Nome completo').fill('Maria Silva');
    await page.getByLabel('E-mail').fill('maria@example.com');
    await page.getByLabel('CPF').fill('529.982.247-25');
    await page.getByLabel('Celular (com DDD)').fill('(11) 91234-5678');
    await page.getByLabel('Número do cartão').fill('4000000000002503');
    // Typed on a numeric keypad, without a "/": the field writes it.
    await page.getByLabel('Validade (MM/AA)').pressSequentially('1235');
    expect(await page.getByLabel('Validade (MM/AA)').inputValue()).toBe('12/35');
    await page.getByLabel('CVV').fill('123');
    await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
    await page.getByRole('button', { name: /^Pagar/ }).click();

    // The issuer's challenge opens inside the checkout page, in the page's language.
    const frame = page.frameLocator('#three-ds-frame iframe');
    await frame.locator('#code').waitFor({ timeout: 10_000 });
    expect(await frame.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('Confirme a sua compra');
    expect(page.url()).toBe(created.checkout_url);
    await shot(page, 'debit-challenge');
    await frame.getByLabel('Código enviado ao seu celular').fill('123456');
    await frame.getByRole('button', { name: 'Confirmar' }).click();
    await page.waitForURL(successUrl, { timeout: 15_000 });
    const session = await service.get(`/checkout/${created.checkout_id}`, { token: merchant.token });
    expect(session.body).toMatchObject({ status: 'PAID', payments: [{ payment_token: created.payment.payment_token, method: 'DEBITCARD', transaction_status: 'PAID' }] });
    const details = await service.get(`/transactionDetails/${session.body.payments[0].payment_token}`, { token: merchant.token });
    expect(details.body.payment_info.order_method).toBe('DEBITCARD');
    await page.close();
  });

  it('the expiry field formats itself as the shopper types, and deleting the "/" is not undone', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD' });
    const page = await open(`${created.checkout_url}?lang=en`);
    const expiry = page.getByLabel('Expiry (MM/YY)');
    await expiry.pressSequentially('4');
    expect(await expiry.inputValue()).toBe('04/');
    await expiry.pressSequentially('29');
    expect(await expiry.inputValue()).toBe('04/29');
    await expiry.press('Backspace');
    await expiry.press('Backspace');
    expect(await expiry.inputValue()).toBe('04/');
    await expiry.press('Backspace');
    expect(await expiry.inputValue()).toBe('04');
    await expiry.fill('');
    await expiry.pressSequentially('1/2030');
    expect(await expiry.inputValue()).toBe('01/2030');
    await page.close();
  });

  it('sandbox pages carry a visible badge and a favicon; the base URL leads to the API reference', async () => {
    const mx = await generate(service, merchant, { method: 'OXXO', paymentCountry: 'MX', paymentCurrency: 'MXN', asset: 'MXN', amount: '150.00' });
    const page = await open(mx.checkout_url);
    await page.locator('[data-view="voucher"]').waitFor();
    expect(await page.locator('[data-sandbox-badge]').isVisible()).toBe(true);
    expect(await page.locator('[data-sandbox-badge]').textContent()).toContain('Sandbox');
    expect(await page.locator('.barcode svg').count()).toBe(1);
    expect(await page.locator('.amount').textContent()).toContain('MX$');
    const icon = await page.evaluate(async () => {
      const href = document.querySelector('link[rel=icon]')?.getAttribute('href') ?? '';
      const response = await fetch(href);
      return { href, type: response.headers.get('content-type'), ok: response.ok };
    });
    expect(icon).toEqual({ href: '/favicon.ico', type: 'image/svg+xml', ok: true });
    await shot(page, 'oxxo-voucher');
    await page.close();
    // The API reference is not the checkout page and has its own policy, so it is opened outside the
    // CSP watch of this suite.
    const docs = await context.newPage();
    await docs.goto(`${service.baseUrl}/`);
    expect(new URL(docs.url()).pathname).toMatch(/^\/docs/);
    await docs.close();
  });

  it('speaks Spanish to a Mexican shopper: by the browser language, by the checkout country, and in the 3DS challenge', async () => {
    const mexican = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'es-MX' });
    const french = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'fr-FR' });
    try {
      const oxxo = await generate(service, merchant, { method: 'OXXO', asset: 'MXN', amount: '349.90' });
      const page = await open(oxxo.checkout_url, mexican);
      await page.locator('[data-view="voucher"]').waitFor();
      expect(await page.locator('html').getAttribute('lang')).toBe('es-MX');
      expect(await page.locator('.amount').textContent()).toContain('MX$349.90');
      expect(await page.getByText('Muestra la referencia o el código de barras en caja').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Imprimir ficha de pago' }).isVisible()).toBe(true);
      expect(await page.locator('[data-sandbox-badge]').textContent()).toContain('pago de prueba');
      await shot(page, 'oxxo-es');
      // The other languages are one link away, and the choice sticks.
      await page.getByRole('link', { name: 'English' }).click();
      await page.waitForURL(/\?lang=en$/);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      await page.close();

      // A browser asking for none of the page's languages gets the checkout country's: Spanish for SPEI.
      const spei = await generate(service, merchant, { method: 'SPEI', asset: 'MXN', amount: '1200.00' });
      const speiPage = await open(spei.checkout_url, french);
      await speiPage.locator('[data-view="spei"]').waitFor();
      expect(await speiPage.locator('html').getAttribute('lang')).toBe('es-MX');
      expect(await speiPage.getByText('Haz una transferencia SPEI').count()).toBe(1);
      await speiPage.close();
      // … and Portuguese for a Brazilian PIX.
      const pix = await generate(service, merchant, { amount: '15.00' });
      const pixPage = await open(pix.checkout_url, french);
      await pixPage.locator('[data-view="pix"]').waitFor();
      expect(await pixPage.locator('html').getAttribute('lang')).toBe('pt-BR');
      await pixPage.close();

      // A Spanish-speaking shopper paying by debit card in Brazil: the 3DS challenge speaks Spanish too.
      const debit = await generate(service, merchant, { method: 'DEBITCARD', amount: '76.00' });
      const debitPage = await open(debit.checkout_url, mexican);
      await debitPage.locator('[data-view="card"][data-card-method="DEBITCARD"]').waitFor();
      expect(await debitPage.getByRole('heading', { level: 1 }).textContent()).toBe('Tarjeta de débito');
      await debitPage.getByLabel('Nombre completo').fill('María Pérez');
      await debitPage.getByLabel('Correo electrónico').fill('maria@example.com');
      await debitPage.getByLabel('CPF (identificación fiscal de Brasil)').fill('529.982.247-25');
      await debitPage.getByLabel('Celular (con lada)').fill('(11) 91234-5678');
      await debitPage.getByLabel('Número de tarjeta').fill('4000000000002503');
      await debitPage.getByLabel('Vencimiento (MM/AA)').pressSequentially('1235');
      await debitPage.getByLabel('CVV').fill('123');
      await debitPage.getByLabel('Nombre como aparece en la tarjeta').fill('MARIA PEREZ');
      await debitPage.getByRole('button', { name: /^Pagar/ }).click();
      const frame = debitPage.frameLocator('#three-ds-frame iframe');
      await frame.locator('#code').waitFor({ timeout: 10_000 });
      expect(await frame.locator('html').getAttribute('lang')).toBe('es-MX');
      expect(await frame.getByRole('heading', { level: 1 }).textContent()).toBe('Confirma tu compra');
      await shot(debitPage, 'debit-challenge-es');
      await frame.getByLabel('Código enviado a tu celular').fill('123456');
      await frame.getByRole('button', { name: 'Confirmar' }).click();
      await debitPage.locator('[data-final="PAID"]').waitFor({ timeout: 15_000 });
      expect(await debitPage.getByRole('heading', { level: 1 }).textContent()).toBe('Pago aprobado');
      await debitPage.close();
    } finally {
      await mexican.close();
      await french.close();
    }
  });

  it('loaded everything without a CSP or integrity violation', () => {
    expect(cspViolations).toEqual([]);
  });
});
