import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accessibilityViolations, shot, signIn, startBrowser, type BrowserKit } from './browser-kit';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { settledCardPayment } from './fixtures';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The dashboard's words for codes, its times and its callbacks, in chromium (docs/dashboard.md, "Times and
 * clocks" and "Callbacks"): statuses and methods in the reader's language with the code kept as the title;
 * times in the merchant's time zone (São Paulo by default, changed and kept by the server), each page saying
 * which clock its times are on; the payments as cards on a 390 px phone; a callback's delivery, attempts,
 * answer code, payment and payload. axe-core checks each view.
 */
let service: TestService;
let kit: BrowserKit;
let receiver: CallbackReceiver;
let merchant: TestMerchant;
let token: string;

/** What the page should print for a time in a zone, as Intl prints it (the page uses the same format). */
function inZone(language: string, iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat(language, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone, timeZoneName: 'shortOffset' }).format(new Date(iso));
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

beforeAll(async () => {
  service = await startTestService('pglite');
  receiver = await startReceiver();
  merchant = await service.merchant('Loja Horários');
  token = (await settledCardPayment(service, merchant, { reference_id: 'pedido-hora', notification_url: `${receiver.url}/hooks`, payment: { amount: '321.45' } })).token;
  await receiver.waitFor(() => receiver.at('/hooks').length > 0, 10_000, 'the payment callback');
  kit = await startBrowser();
});

// Each test starts from the default zone (none picked).
beforeEach(async () => {
  await service.ctx.db.updateTable('merchants').set({ time_zone: null }).where('id', '=', merchant.merchant_id).execute();
});

afterAll(async () => {
  await kit?.close();
  await receiver?.close();
  await service?.close();
});

describe('dashboard words, times and callbacks in chromium', () => {
  it('shows payments as cards on a 390 px phone in Portuguese: amount, method, status and date in São Paulo time, codes kept as titles', async () => {
    const page = await kit.open(`${service.baseUrl}/dashboard#/payments`, { viewport: { width: 390, height: 844 }, locale: 'pt-BR' });
    await signIn(page, merchant, /^Entrar$/);
    const row = page.locator(`tr[data-payment-token="${token}"]`);
    await row.waitFor();
    const created = (await service.ctx.db.selectFrom('payments').select('created_at').where('payment_token', '=', token).executeTakeFirstOrThrow()).created_at.toISOString();
    // Each of the four is on screen, inside the phone's width, under its column's name.
    for (const [label, text] of [
      ['Valor', 'R$ 321,45'],
      ['Método', 'Cartão de crédito'],
      ['Status', 'Pago'],
      ['Criado em', inZone('pt-BR', created, 'America/Sao_Paulo')],
    ] as const) {
      const cell = row.locator(`td[data-label="${label}"]`);
      expect(await cell.isVisible(), label).toBe(true);
      expect((await cell.textContent())?.replace(/\s/g, ' '), label).toContain(text.replace(/\s/g, ' '));
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width, label).toBeLessThanOrEqual(390);
    }
    expect(inZone('pt-BR', created, 'America/Sao_Paulo')).toContain('GMT-3');
    expect(await row.locator('td[data-label="Status"] .badge').getAttribute('title')).toBe('PAID');
    expect(await row.locator('td[data-label="Método"] [data-code]').getAttribute('title')).toBe('CREDITCARD');
    // The filters show words and send codes.
    expect(await page.locator('select[name="status"] option[value="PARTIALLY_REFUNDED"]').textContent()).toBe('Reembolsado em parte');
    // The page says its clock: the sandbox clock, in the merchant's zone.
    expect(await page.locator('.clock-note').first().textContent()).toBe('Horários: relógio do sandbox, em America/Sao_Paulo (GMT-3).');
    expect(await noSidewaysScroll(page)).toBe(true);
    await shot(page, 'phone-payment-card');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(kit.problems).toEqual([]);
  });

  it('shows times in the time zone the merchant picks, kept by the server for its next visit', async () => {
    const page = await kit.open(`${service.baseUrl}/dashboard#/payments/${token}`, { viewport: { width: 1280, height: 900 }, locale: 'es-MX' });
    await signIn(page, merchant, /^Ingresar$/);
    await page.getByRole('heading', { name: /Pago pedido-hora/ }).waitFor();
    expect(await page.locator('h1 .badge').textContent()).toBe('Pagado');
    const zone = page.getByLabel('Zona horaria');
    expect(await zone.inputValue()).toBe('America/Sao_Paulo');
    await zone.selectOption('America/Mexico_City');
    await page.getByText('Las horas ahora se muestran en America/Mexico_City').waitFor();
    const stored = await service.ctx.db.selectFrom('merchants').select('time_zone').where('id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    expect(stored.time_zone).toBe('America/Mexico_City');
    const times = await page.locator('.timeline time').allTextContents();
    expect(times.length).toBeGreaterThan(0);
    for (const text of times) expect(text).toMatch(/GMT-6\)?$/);
    expect(await page.locator('.clock-note').textContent()).toBe('Horas: reloj del sandbox, en America/Mexico_City (GMT-6).');
    await shot(page, 'payment-zone');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Another browser of the merchant: the zone is the server's, not this browser's.
    const again = await kit.open(`${service.baseUrl}/dashboard#/payments`, { viewport: { width: 1280, height: 900 }, locale: 'pt-BR' });
    await signIn(again, merchant, /^Entrar$/);
    expect(await again.getByLabel('Fuso horário').inputValue()).toBe('America/Mexico_City');
    // An unknown zone is refused by the server with its code.
    const refused = await again.evaluate(async () => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const answer = await fetch('/dashboard/api/settings', { method: 'PUT', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token }, body: JSON.stringify({ time_zone: 'Mars/Olympus' }) });
      return { status: answer.status, body: await answer.json() };
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe('08.03.0001');
    expect(kit.problems).toEqual([]);
  });

  it("shows a callback's delivery, attempts, answer code, payment and payload, its times on real time", async () => {
    const page = await kit.open(`${service.baseUrl}/dashboard#/callbacks`, { viewport: { width: 1280, height: 900 }, locale: 'pt-BR' });
    await signIn(page, merchant, /^Entrar$/);
    await page.getByLabel('Recurso').fill(token);
    await page.getByRole('button', { name: 'Buscar' }).click();
    const event = page.locator('li.event', { has: page.locator('[data-code="payment.status_changed"]') }).last();
    await event.waitFor();
    expect(await event.locator('[data-code="payment.status_changed"]').textContent()).toBe('Status do pagamento mudou');
    await expect.poll(() => event.locator('.delivery').getAttribute('data-delivery-status')).toBe('delivered');
    const facts = (await event.locator('.delivery dl').textContent()) ?? '';
    expect(facts).toContain(`${receiver.url}/hooks`);
    expect(facts).toContain('Entregue');
    expect(facts).toMatch(/Tentativas\s*1/);
    expect(await event.locator('.response-code').textContent()).toBe(String(receiver.at('/hooks')[0]!.status || 200));
    expect(await event.getByRole('link', { name: token }).getAttribute('href')).toBe(`#/payments/${token}`);
    expect(await event.locator('dl').first().textContent()).toContain('pedido-hora');
    // The payload, folded, is the callback body the receiver got.
    const payload = event.locator('details.payload');
    expect(await payload.locator('pre').isVisible()).toBe(false);
    await payload.locator('summary').click();
    const shown = JSON.parse((await payload.locator('pre').textContent())!);
    const sent = receiver.at('/hooks').map((c) => JSON.parse(c.body)).find((b) => b.id === shown.id);
    expect(shown).toEqual(sent);
    expect(await page.locator('.clock-note').textContent()).toBe('Horários: hora real, em America/Sao_Paulo (GMT-3).');
    await shot(page, 'callbacks-details');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(kit.problems).toEqual([]);
  });

  it('says both clocks on the sandbox controls', async () => {
    const page = await kit.open(`${service.baseUrl}/dashboard#/sandbox`, { viewport: { width: 390, height: 844 }, locale: 'en-US' });
    await signIn(page, merchant, /^Sign in$/);
    await page.locator('.real-now').waitFor();
    await expect.poll(() => page.locator('.real-now').textContent()).toMatch(/GMT-3$/);
    expect(await page.locator('.sandbox-now').textContent()).toMatch(/GMT-3$/);
    expect(await page.getByText('The sandbox clock is this merchant’s clock').isVisible()).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(kit.problems).toEqual([]);
  });
});
