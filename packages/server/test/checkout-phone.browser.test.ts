import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FEE_PLAN } from '../src/fees/fee-plan';
import { formatMoney } from '../src/checkout-page/i18n';
import { cardBrands, detectCardScheme } from '../src/rails/cards';
import { accessibilityViolations, startBrowser, type BrowserKit } from './browser-kit';
import { generate } from './checkout-fixtures';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The hosted checkout page on a phone (390 px) and a desktop (1280 px), in chromium (issue 36, point 7):
 * the order summary, the method picker's icons and hints, PIX's copy-and-paste code before its QR code
 * on a phone, installment labels with their totals, card brands recognised by BIN (Hipercard included,
 * and refused as the vault refuses it), CPF and expiry checked before anything is sent, the expiry and
 * CVV side by side, and the error summary above the pay button. Every screen is checked with axe-core.
 * Screenshots go to test-artifacts/checkout-phone/, or to docs/images/checkout/ with
 * CHECKOUT_SCREENSHOTS=docs (docs/checkout.md shows them).
 */
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const SHOTS =
  process.env.CHECKOUT_SCREENSHOTS === 'docs' ? new URL('../../../docs/images/checkout/', import.meta.url) : new URL('../../../test-artifacts/checkout-phone/', import.meta.url);

let service: TestService;
let kit: BrowserKit;
let merchant: TestMerchant;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  service = await startTestService('pglite');
  merchant = await service.merchant('Loja Exemplo');
  kit = await startBrowser();
});

afterAll(async () => {
  await kit?.close();
  await service?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/** The page's top edge of an element, in CSS pixels. */
async function top(page: Page, selector: string): Promise<number> {
  const box = await page.locator(selector).first().boundingBox();
  if (!box) throw new Error(`${selector} is not visible`);
  return box.y;
}

async function fillPayer(page: Page, values: { cpf?: string; number?: string; expiry?: string } = {}): Promise<void> {
  await page.getByLabel('Nome completo').fill('Maria Silva');
  await page.getByLabel('E-mail').fill('maria@example.com');
  await page.getByLabel('CPF').fill(values.cpf ?? '529.982.247-25');
  await page.getByLabel('Número do cartão').fill(values.number ?? '4111 1111 1111 1111');
  await page.getByLabel('Validade (MM/AA)').fill(values.expiry ?? '12/35');
  await page.getByLabel('CVV').fill('123');
  await page.getByLabel('Nome impresso no cartão').fill('MARIA SILVA');
}

describe('the hosted checkout page on a phone and a desktop', () => {
  it('shows the order summary and a picker whose methods have an icon and a hint, at 390 and 1280 px', async () => {
    const created = await generate(service, merchant, { method: 'ALL', amount: '149.90', referenceId: 'pedido-1001' });
    for (const [viewport, name] of [[PHONE, 'choose-phone'], [DESKTOP, 'choose-desktop']] as const) {
      const page = await kit.open(created.checkout_url, { viewport, locale: 'pt-BR' });
      await page.locator('[data-view="choose"]').waitFor();
      const summary = page.getByRole('region', { name: 'Resumo do pedido' });
      expect(await summary.locator('.merchant').textContent()).toBe('Pagamento para Loja Exemplo');
      expect(await summary.locator('.monogram').textContent()).toBe('L');
      expect(await summary.locator('.order-ref').textContent()).toBe('Pedido pedido-1001');
      expect((await summary.locator('.amount').textContent())?.replace(/\u00a0/g, ' ')).toBe('Valor: R$ 149,90');
      // The summary comes before the methods.
      expect(await top(page, '.summary')).toBeLessThan(await top(page, '[data-view="choose"]'));
      const pix = page.getByRole('button', { name: 'PIX Aprovação imediata' });
      expect(await pix.locator('svg.method-icon').count()).toBe(1);
      expect(await page.getByRole('button', { name: /^Boleto bancário/ }).textContent()).toContain('Aprovação em 1–3 dias úteis');
      expect(await page.getByRole('link', { name: /^Cartão de crédito/ }).textContent()).toContain('À vista ou parcelado');
      // Each method's icon differs from the others'.
      const icons = await page.locator('[data-view="choose"] svg.method-icon').evaluateAll((svgs) => svgs.map((s) => s.innerHTML));
      expect(new Set(icons).size).toBe(icons.length);
      expect(await accessibilityViolations(page)).toEqual([]);
      await shot(page, name);
    }
  });

  it('PIX: the copy-and-paste code and its button come before the QR code on a phone, after it on a desktop', async () => {
    const created = await generate(service, merchant, { amount: '49.90' });
    const phone = await kit.open(created.checkout_url, { viewport: PHONE, locale: 'pt-BR' });
    await phone.locator('.qr svg').waitFor();
    const copy = 'button[data-copy-target="br-code"]';
    expect(await top(phone, copy)).toBeLessThan(await top(phone, '.qr'));
    expect(await top(phone, '#br-code')).toBeLessThan(await top(phone, '.qr'));
    // The copy button is on the first screen of a phone, without scrolling.
    const button = await phone.locator(copy).boundingBox();
    expect(button!.y + button!.height).toBeLessThanOrEqual(PHONE.height);
    expect(await accessibilityViolations(phone)).toEqual([]);
    await shot(phone, 'pix-phone');

    const desktop = await kit.open(created.checkout_url, { viewport: DESKTOP, locale: 'pt-BR' });
    await desktop.locator('.qr svg').waitFor();
    expect(await top(desktop, '.qr')).toBeLessThan(await top(desktop, '#br-code'));
    expect(await accessibilityViolations(desktop)).toEqual([]);
    await shot(desktop, 'pix-desktop');
  });

  it('labels installments "sem juros", or "com juros" with their total, and the pay button says the total', async () => {
    const admin = { headers: { authorization: `Bearer ${service.ctx.adminToken}` } };
    const shop = await service.merchant('Loja Parcelada');
    const plan = { ...DEFAULT_FEE_PLAN, installment_plan: { max_installments: 6, merchant_funded: 3, monthly_rate_ppm: 19_900, merchant_fee_ppm_per_installment: 0 } };
    expect((await service.request('PUT', `/admin/merchants/${shop.merchant_id}/fee-plan`, plan, admin)).status).toBe(200);
    const created = await generate(service, shop, { method: 'CREDITCARD', amount: '100.00' });
    // What the API says the plan offers: the page must show the same amounts.
    const session = await service.get(`/checkout/${created.checkout_id}`, { token: shop.token });
    const options = session.body.installment_options as { installments: number; installment_amount: number; total_amount: number; interest_free: boolean }[];
    expect(options.map((o) => o.interest_free)).toEqual([true, true, true, false, false, false]);
    const brl = (amount: number) => formatMoney(BigInt(Math.round(amount * 100)), 'pt');

    const page = await kit.open(created.checkout_url, { viewport: PHONE, locale: 'pt-BR' });
    const offered = (await page.getByLabel('Parcelas').locator('option').allTextContents()).map((l) => l.replace(/\u00a0/g, ' '));
    expect(offered[0]).toBe('1x de R$ 100,00');
    expect(offered[2]).toBe('3x de R$ 33,33 sem juros');
    for (const o of options.slice(3)) {
      expect(offered[o.installments - 1]).toBe(`${o.installments}x de ${brl(o.installment_amount)} com juros (total ${brl(o.total_amount)})`);
      expect(o.total_amount).toBeGreaterThan(100);
    }
    await page.getByLabel('Parcelas').selectOption('6');
    expect((await page.locator('#card-form button[type=submit]').textContent())?.replace(/\u00a0/g, ' ')).toBe(`Pagar ${brl(options[5]!.total_amount)}`);
    await page.getByLabel('Parcelas').selectOption('2');
    expect((await page.locator('#card-form button[type=submit]').textContent())?.replace(/\u00a0/g, ' ')).toBe('Pagar R$ 100,00');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('lays out the expiry beside the CVV on one line at 390 px, and shows the accepted brands', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD' });
    for (const lang of ['pt', 'es', 'en']) {
      const page = await kit.open(`${created.checkout_url}?lang=${lang}`, { viewport: PHONE, locale: 'pt-BR' });
      const [expiryLabel, cvvLabel] = [await page.locator('label[for=expiry]').boundingBox(), await page.locator('label[for=cvv]').boundingBox()];
      const [expiry, cvv] = [await page.locator('#expiry').boundingBox(), await page.locator('#cvv').boundingBox()];
      // One line each: both labels as tall as each other, and both inputs on the same line.
      expect(expiryLabel!.height, lang).toBe(cvvLabel!.height);
      expect(expiry!.y, lang).toBe(cvv!.y);
      expect(expiry!.height).toBe(cvv!.height);
      expect(expiry!.x + expiry!.width).toBeLessThan(cvv!.x);
      // Nothing overflows the phone's width.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      if (lang === 'pt') {
        const accepted = await page.getByRole('list', { name: 'Bandeiras aceitas' }).getByRole('img').evaluateAll((imgs) => imgs.map((i) => i.getAttribute('aria-label')));
        expect(accepted).toEqual(['Visa', 'Mastercard', 'Elo', 'American Express', 'Diners Club', 'Discover', 'JCB']);
        expect(await accessibilityViolations(page)).toEqual([]);
        await shot(page, 'card-phone');
      }
    }
  });

  it('recognises brands by BIN and shows their badge; a Hipercard is named and refused before anything is sent', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD' });
    const page = await kit.open(created.checkout_url, { viewport: PHONE, locale: 'pt-BR' });
    const cardRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/card')) cardRequests.push(request.url());
    });
    const shown = async (number: string) => {
      await page.getByLabel('Número do cartão').fill(number);
      return {
        brand: await page.locator('#card-scheme').getAttribute('data-brand'),
        scheme: await page.locator('#card-scheme').getAttribute('data-scheme'),
        text: await page.locator('#card-scheme').textContent(),
        badges: await page.locator('.brand-slot svg:not([hidden])').evaluateAll((svgs) => svgs.map((s) => s.textContent)),
      };
    };
    expect(await shown('4111 1111 1111 1111')).toEqual({ brand: 'visa', scheme: 'VISA', text: 'Visa ✓', badges: ['VISA'] });
    expect(await shown('5555 5555 5555 4444')).toEqual({ brand: 'mastercard', scheme: 'MASTER', text: 'Mastercard ✓', badges: ['MASTER'] });
    expect(await shown('6362 9700 0045 7013')).toEqual({ brand: 'elo', scheme: 'ELO', text: 'Elo ✓', badges: ['elo'] });
    expect(await shown('3782 822463 10005')).toMatchObject({ brand: 'american-express', scheme: 'AMERICAN_EXPRESS', badges: ['AMEX'] });
    expect(await shown('3056 9309 0259 04')).toMatchObject({ brand: 'diners-club', scheme: 'DINERS_CLUB', badges: ['DINERS'] });
    expect(await shown('6011 1111 1111 1117')).toMatchObject({ brand: 'discover', scheme: 'DISCOVER', badges: ['DISCOVER'] });
    const refused = 'Cartão Hipercard não é aceito. Use um cartão de outra bandeira.';
    expect(await shown('6062 8256 2425 4001')).toEqual({ brand: 'hipercard', scheme: '', text: refused, badges: ['HIPERCARD'] });
    expect(await shown('3841 0012 3456 7890 123')).toMatchObject({ brand: 'hipercard', scheme: '', text: refused });
    expect(await page.getByLabel('Número do cartão').getAttribute('aria-invalid')).toBe('true');
    await shot(page, 'card-hipercard-phone');

    await fillPayer(page, { number: '6062 8256 2425 4001' });
    await page.getByRole('button', { name: /^Pagar/ }).click();
    await expect.poll(() => page.locator('#form-errors').textContent()).toContain(refused);
    expect(cardRequests).toEqual([]);

    // The page's detection is the vault's: BINs at both ends of every brand's ranges, and one outside.
    const numbers = new Set<string>();
    for (const brand of cardBrands()) {
      for (const pattern of brand.patterns) {
        const [min, max] = typeof pattern === 'number' ? [pattern, pattern] : pattern;
        for (const bound of [min - 1, min, max, max + 1]) numbers.add(String(bound).padEnd(16, '0'));
      }
    }
    const answers = await page.evaluate((list) => {
      const input = document.getElementById('number') as HTMLInputElement;
      const out = document.getElementById('card-scheme')!;
      return list.map((n) => {
        input.value = n;
        input.dispatchEvent(new Event('input'));
        return out.dataset.scheme || null;
      });
    }, [...numbers]);
    const differences = [...numbers].filter((n, i) => answers[i] !== detectCardScheme(n));
    expect(numbers.size).toBeGreaterThan(200);
    expect(differences).toEqual([]);
  });

  it('refuses the CPF 12345678900 and the expiry 12/20 in the browser, listing them above the pay button, focused', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD', amount: '80.00' });
    const page = await kit.open(created.checkout_url, { viewport: PHONE, locale: 'pt-BR' });
    const cardRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/card')) cardRequests.push(request.url());
    });
    await fillPayer(page, { cpf: '123.456.789-00', expiry: '12/20' });
    await page.getByRole('button', { name: /^Pagar/ }).click();
    const summary = page.locator('#form-errors');
    await expect.poll(() => summary.locator('li').allTextContents()).toEqual(['CPF inválido: confira os números.', 'Cartão vencido: confira a validade.']);
    expect(await summary.getByRole('heading', { level: 2 }).textContent()).toBe('Confira os dados');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('form-errors');
    expect(await summary.getAttribute('role')).toBe('alert');
    // Above the pay button, in the reading order as on the screen.
    const order = await page.evaluate(() => {
      const errors = document.getElementById('form-errors')!;
      const submit = document.querySelector('#card-form button[type=submit]')!;
      return errors.compareDocumentPosition(submit) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    expect(order).toBeTruthy();
    expect(await top(page, '#form-errors')).toBeLessThan(await top(page, '#card-form button[type=submit]'));
    expect(await page.getByLabel('CPF').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Validade (MM/AA)').getAttribute('aria-invalid')).toBe('true');
    expect(await accessibilityViolations(page)).toEqual([]);
    await shot(page, 'card-errors-phone');
    // Each line leads to its field.
    await summary.getByRole('link', { name: /^CPF inválido/ }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tax_id');

    // A month that does not exist, and an empty field named by its label.
    await page.getByLabel('CPF').fill('');
    await page.getByLabel('Validade (MM/AA)').fill('13/30');
    await page.getByRole('button', { name: /^Pagar/ }).click();
    await expect.poll(() => summary.locator('li').allTextContents()).toEqual(['Preencha o campo “CPF”.', 'Validade inválida: o mês vai de 01 a 12.']);
    expect(cardRequests).toEqual([]);

    // The same card, valid: a CNPJ is accepted too, and this month is not yet expired (the merchant clock's month).
    const now = new Date();
    const thisMonth = `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear()).slice(2)}`;
    await page.getByLabel('CPF').fill('11.222.333/0001-81');
    await page.getByLabel('Validade (MM/AA)').fill(thisMonth);
    await page.getByRole('button', { name: /^Pagar/ }).click();
    await page.locator('[data-final="PAID"], [data-view="processing"]').first().waitFor({ timeout: 10_000 });
    expect(cardRequests).toHaveLength(1);
  });

  it('says the same in English and Spanish', async () => {
    const created = await generate(service, merchant, { method: 'CREDITCARD' });
    const cases = [
      { lang: 'en', labels: ['Full name', 'E-mail', 'CPF (Brazilian tax id)', 'Card number', 'Expiry (MM/YY)', 'CVV', 'Name on card'], pay: /^Pay/, messages: ['Invalid CPF: check the digits.', 'This card has expired: check the expiry date.'], title: 'Please check your details' },
      { lang: 'es', labels: ['Nombre completo', 'Correo electrónico', 'CPF (identificación fiscal de Brasil)', 'Número de tarjeta', 'Vencimiento (MM/AA)', 'CVV', 'Nombre como aparece en la tarjeta'], pay: /^Pagar/, messages: ['CPF inválido: revisa los números.', 'Tarjeta vencida: revisa el vencimiento.'], title: 'Revisa tus datos' },
    ];
    for (const c of cases) {
      const page = await kit.open(`${created.checkout_url}?lang=${c.lang}`, { viewport: DESKTOP, locale: 'pt-BR' });
      const values = ['Maria Silva', 'maria@example.com', '12345678900', '4111111111111111', '12/20', '123', 'MARIA SILVA'];
      for (const [i, label] of c.labels.entries()) await page.getByLabel(label, { exact: true }).fill(values[i]!);
      await page.getByRole('button', { name: c.pay }).click();
      await expect.poll(() => page.locator('#form-errors li').allTextContents()).toEqual(c.messages);
      expect(await page.locator('#form-errors h2').textContent()).toBe(c.title);
      expect(await accessibilityViolations(page)).toEqual([]);
      if (c.lang === 'en') await shot(page, 'card-errors-desktop');
    }
  });

  it('loaded everything without a CSP, integrity or script error', () => {
    expect(kit.problems).toEqual([]);
  });
});
