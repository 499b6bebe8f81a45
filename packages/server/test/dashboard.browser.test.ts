import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type CallbackReceiver } from './callback-receiver';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
import { generate } from './checkout-fixtures';
import { customerWithCard, settledCardPayment } from './fixtures';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * The merchant dashboard in a real browser (Debian chromium through playwright-core), on PGlite: the
 * API suite (dashboard.test.ts) covers both engines. A desktop and a 390 px phone; axe-core checks
 * the WCAG 2.1 A and AA rules on each view. Screenshots go to
 * test-artifacts/dashboard/, or to docs/images/dashboard/ with DASHBOARD_SCREENSHOTS=docs (how the
 * guide's pictures are made).
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS =
  process.env.DASHBOARD_SCREENSHOTS === 'docs' ? new URL('../../../docs/images/dashboard/', import.meta.url) : new URL('../../../test-artifacts/dashboard/', import.meta.url);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let service: TestService;
let browser: Browser;
let receiver: CallbackReceiver;
let merchant: TestMerchant;
const problems: string[] = [];
const contexts: BrowserContext[] = [];

async function paidPayment(reference: string, amount = '100.00'): Promise<string> {
  return (await settledCardPayment(service, merchant, { reference_id: reference, notification_url: `${receiver.url}/hooks`, payment: { amount } })).token;
}

async function open(viewport: { width: number; height: number }, locale: string): Promise<Page> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, locale });
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (message) => {
    // A 401 at load is the page asking whether a session exists; only policy violations are problems.
    if (/Content Security Policy|integrity|Refused/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${service.baseUrl}/dashboard`);
  return page;
}

async function signIn(page: Page, signInLabel: RegExp): Promise<void> {
  await page.getByLabel('API key').fill(merchant.api_key);
  await page.getByLabel('API secret').fill(merchant.api_secret);
  await page.getByRole('button', { name: signInLabel }).click();
  await page.locator('header .merchant').waitFor();
}

/** The whole page, the window only (`'window'`), or one part of it. */
async function shot(page: Page, name: string, part?: Locator | 'window'): Promise<void> {
  const path = new URL(`${name}.png`, SHOTS).pathname;
  if (part === undefined || part === 'window') await page.screenshot({ path, fullPage: part === undefined });
  else await part.screenshot({ path });
}

/**
 * The WCAG 2.1 A and AA rules that axe-core can check, on the page as it is now. The engine is
 * evaluated through the DevTools protocol, which the page's CSP does not govern.
 */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** The error text a control is described by while it is marked invalid, or null. */
function describedError(control: Locator): Promise<string | null> {
  return control.evaluate((element) => {
    const id = element.getAttribute('aria-describedby');
    return element.getAttribute('aria-invalid') === 'true' && id ? (document.getElementById(id)?.textContent ?? null) : null;
  });
}

/** Whether a canvas has anything drawn on it. */
function drawnPixels(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((canvas: HTMLCanvasElement) => {
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted += 1;
    return painted;
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(SHOTS, { recursive: true });
  service = await startTestService('pglite');
  receiver = await startReceiver();
  merchant = await service.merchant('Loja Exemplo');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  for (const [i, amount] of ['250.00', '89.90', '1200.00', '42.00'].entries()) await paidPayment(`order-${1000 + i}`, amount);
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await receiver?.close();
  await service?.close();
});

describe('merchant dashboard in chromium', () => {
  it('signs in, shows the charts, finds a payment by its reference and refunds it from its page', async () => {
    const token = await paidPayment('pedido-777', '150.00');
    const page = await open({ width: 1280, height: 900 }, 'en-US');
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    await shot(page, 'sign-in');
    expect(await accessibilityViolations(page)).toEqual([]);
    await signIn(page, /^Sign in$/);

    // Overview: the four charts, drawn by Chart.js on their canvases.
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => drawnPixels(page, '#chart-volume'), { timeout: 10_000 }).toBeGreaterThan(500);
    expect(await page.locator('canvas[role="img"]').count()).toBe(4);
    await expect(page.getByText('SANDBOX: test data, no real money')).toBeTruthy();
    expect(await page.locator('.sandbox-badge').isVisible()).toBe(true);
    await shot(page, 'overview');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Payments: search by reference, open the payment.
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByLabel('Search').fill('pedido-777');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await shot(page, 'payments');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'pedido-777' }).click();
    await page.getByRole('heading', { name: /Payment pedido-777/ }).waitFor();
    expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(2);

    // Refund, with its confirmation.
    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/Amount to refund/).fill('50.00');
    await shot(page, 'refund-confirmation');
    expect(await accessibilityViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(/Refund requested/).waitFor();
    await expect.poll(() => page.locator('ul.refunds li').count()).toBe(1);
    const refunds = await service.ctx.db.selectFrom('refunds').selectAll().where('payment_token', '=', token).execute();
    expect(refunds.map((r) => r.amount_minor)).toEqual([5000n]);
    await shot(page, 'payment');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Callbacks: resend the payment's callback, which the receiver gets again with the same id.
    await page.getByRole('link', { name: 'Callbacks' }).click();
    await page.getByRole('heading', { name: 'Callbacks' }).waitFor();
    await page.getByLabel('Resource').fill(token);
    await page.getByRole('button', { name: 'Search' }).click();
    const event = page.locator('li.event', { has: page.locator('[data-code="payment.status_changed"]') }).first();
    await event.waitFor();
    const eventId = await event.getAttribute('data-event-id');
    const before = receiver.at('/hooks').filter((c) => c.id === eventId).length;
    expect(before).toBeGreaterThanOrEqual(1);
    await event.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Sent again.').waitFor();
    await receiver.waitFor(() => receiver.at('/hooks').filter((c) => c.id === eventId).length > before, 10_000, 'the resent callback');
    await shot(page, 'callbacks');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Sign-out ends the session: reloading shows the sign-in form.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    await page.reload();
    await page.getByLabel('API key').waitFor();
    expect(problems).toEqual([]);
  });

  it('lists checkouts, subscriptions with their charges and payouts, edits a report in its form with errors at their fields, and exports it with progress', async () => {
    const checkout = await generate(service, merchant, { amount: '49.90', referenceId: 'carrinho-55' });
    const ids = await customerWithCard(service, merchant);
    const today = (await service.get('/sandbox/clock', { token: merchant.token })).body.now.slice(0, 10);
    const subscription = await service.post(
      '/subscriptions',
      { public_person_id: ids.personId, public_card_id: ids.cardId, amount_type: 'FIXED', amount: '29.90', asset: 'BRL', interval: 'MONTHLY', reference_id: 'plano-ouro', first_due_date: today },
      { token: merchant.token },
    );
    expect(subscription.status, subscription.text).toBe(200);
    const payout = PAYOUT_EXAMPLES.find((e) => e.country === 'PE')!;
    const payouts = await service.post('/payoutTransaction', { payoutTransactions: [{ ...structuredClone(payout.item), contract_id: merchant.payout_contract_id }] }, { token: merchant.token });
    expect(payouts.status, payouts.text).toBe(200);

    const page = await open({ width: 1280, height: 900 }, 'en-US');
    await signIn(page, /^Sign in$/);
    const nav = page.getByRole('navigation', { name: 'Main' });

    await nav.getByRole('link', { name: 'Checkouts' }).click();
    await page.getByRole('link', { name: 'carrinho-55' }).click();
    await page.getByText(checkout.checkout_id).waitFor();

    await nav.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('link', { name: 'plano-ouro' }).click();
    await page.getByRole('heading', { name: 'Charges' }).waitFor();
    await shot(page, 'subscription');
    expect(await accessibilityViolations(page)).toEqual([]);

    await nav.getByRole('link', { name: 'Payouts' }).click();
    await page.locator('tbody tr').first().waitFor();
    await page.locator('tbody tr a').first().click();
    await page.getByText(payouts.body.payoutTransactionResponses[0].tx_id).waitFor();

    // The report editor: a form over the definition, its errors next to their fields.
    await nav.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('link', { name: 'Pay-ins of the last 7 days' }).click();
    const form = page.locator('form.report-form');
    const name = form.getByLabel('Name', { exact: true });
    await expect.poll(() => name.inputValue()).toBe('Pay-ins of the last 7 days');
    const reportId = Number(/#\/reports\/(\d+)/.exec(page.url())?.[1]);
    const columns = await service.get(`/reports/myreports/report/${reportId}`, { token: merchant.token });
    expect(await form.locator('fieldset.item', { has: page.locator('legend', { hasText: /^Column \d+$/ }) }).count()).toBe(columns.body.fields.length);
    expect(await page.getByRole('group', { name: 'Column 1', exact: true }).getByLabel('Column name').inputValue()).toBe('Payment token');
    await name.fill('Vendas do dia');

    // A column name used twice is caught before anything is sent.
    const second = page.getByRole('group', { name: 'Column 2', exact: true }).getByLabel('Column name');
    await second.fill('Payment token');
    await form.getByRole('button', { name: 'Save' }).click();
    expect(await describedError(second)).toBe('Another column has this name; each column needs its own.');
    await page.getByRole('alert').getByText('The report was not saved: 1 field needs attention.').waitFor();
    expect((await service.get(`/reports/myreports/report/${reportId}`, { token: merchant.token })).body.name).toBe('Pay-ins of the last 7 days');
    await second.fill('Reference');

    // A filter whose value the server refuses: the message is placed on the value, in words for its type.
    await form.getByRole('button', { name: 'Add a filter' }).click();
    const filter = page.getByRole('group', { name: 'Filter 2', exact: true });
    await filter.getByLabel('Field').selectOption({ label: 'amount' });
    await filter.getByLabel('Condition').selectOption({ label: 'at least' });
    const value = filter.getByLabel(/^Value/);
    await value.fill('10,00');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => describedError(value)).toBe('Enter an amount with at most 2 decimals, such as 100 or 100.50.');
    await page.getByRole('alert').getByText('Filter 2, Value').waitFor();
    await shot(page, 'report-errors', 'window');
    await shot(page, 'report-filter-error', filter);
    expect(await accessibilityViolations(page)).toEqual([]);
    await value.fill('10.00');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect(await describedError(value)).toBeNull();
    const stored = await service.get(`/reports/myreports/report/${reportId}`, { token: merchant.token });
    expect(stored.body.name).toBe('Vendas do dia');
    expect(stored.body.fields[1].alias).toBe('Reference');
    expect(stored.body.filters.map((f: any) => [f.field.id, f.filter_operator, f.value, f.dynamic_filter])).toEqual([
      [7, '=', 'LAST_7_DAYS', true],
      [33, '>=', '10.00', false],
    ]);

    await page.getByRole('button', { name: 'Export CSV' }).click();
    await page.getByText(/Export ready \(\d+\.\d KiB\)/).waitFor();
    const link = page.getByRole('link', { name: /Download report-\d+\.csv/ });
    expect(await link.getAttribute('href')).toMatch(/^blob:/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'report', 'window');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('works on a 390 px phone in Portuguese: no sideways scrolling, the menu opens, the sandbox controls act, a report is created with its errors in Portuguese', async () => {
    const page = await open({ width: 390, height: 844 }, 'pt-BR');
    expect(await page.locator('html').getAttribute('lang')).toBe('pt-BR');
    await page.getByRole('heading', { name: 'Entrar no painel' }).waitFor();
    await signIn(page, /^Entrar$/);
    await page.getByRole('heading', { name: 'Visão geral' }).waitFor();
    await expect.poll(() => drawnPixels(page, '#chart-approval'), { timeout: 10_000 }).toBeGreaterThan(100);
    const widths = () => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(page, 'phone-overview');

    // The navigation hides behind the menu button.
    const nav = page.getByRole('navigation', { name: 'Principal' });
    expect(await nav.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('true');
    await shot(page, 'phone-menu');
    expect(await accessibilityViolations(page)).toEqual([]);
    await nav.getByRole('link', { name: 'Pagamentos' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThanOrEqual(4);
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(page, 'phone-payments');

    // Sandbox: advance the clock by a day and inject a fault.
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Controles do sandbox' }).click();
    const before = Date.parse((await service.get('/sandbox/clock', { token: merchant.token })).body.now);
    await page.locator('#sandbox-clock').locator('..').getByRole('button', { name: 'Adiantar' }).click();
    await page.locator('form[aria-labelledby="sandbox-clock"] p[role="status"]').waitFor();
    const after = Date.parse((await service.get('/sandbox/clock', { token: merchant.token })).body.now);
    expect(after - before).toBeGreaterThanOrEqual(86_400_000);
    const faults = page.locator('form[aria-labelledby="sandbox-faults"]');
    await faults.getByLabel('Operação').selectOption('refund');
    await faults.getByLabel(/Vezes/).fill('2');
    await faults.getByRole('button', { name: 'Injetar' }).click();
    await faults.getByText(/As próximas 2 chamada/).waitFor();
    const fault = await service.ctx.db.selectFrom('sandbox_faults').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
    expect(fault.map((f) => [f.operation, f.remaining])).toEqual([['refund', 2]]);
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(page, 'phone-sandbox');
    expect(await accessibilityViolations(page)).toEqual([]);

    // A new report in Portuguese: the form's own checks, then the server's, each at its field.
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Relatórios' }).click();
    await page.getByRole('link', { name: /Novo relatório/ }).click();
    const form = page.locator('form.report-form');
    await form.getByRole('button', { name: 'Criar' }).click();
    const name = form.getByLabel('Nome', { exact: true });
    const first = page.getByRole('group', { name: 'Coluna 1', exact: true });
    expect(await describedError(name)).toBe('Obrigatório.');
    expect(await describedError(first.getByLabel('Campo', { exact: true }))).toBe('Obrigatório.');
    expect(await describedError(first.getByLabel('Nome da coluna'))).toBe('Obrigatório.');
    await page.getByRole('alert').getByText('O relatório não foi salvo: 3 campos precisam de atenção.').waitFor();

    await name.fill('Volume por status');
    await first.getByLabel('Campo', { exact: true }).selectOption({ label: 'transaction_status' });
    expect(await first.getByLabel('Nome da coluna').inputValue()).toBe('transaction_status');
    await form.getByRole('button', { name: 'Adicionar coluna' }).click();
    const second = page.getByRole('group', { name: 'Coluna 2', exact: true });
    await second.getByLabel('Campo', { exact: true }).selectOption({ label: 'amount' });
    await second.getByLabel('Agregação').selectOption({ label: 'Soma' });
    const grouping = page.getByRole('group', { name: 'Agrupar linhas por', exact: true });
    await grouping.getByLabel('transaction_status').check();
    await form.getByRole('button', { name: 'Criar' }).click();
    // A total of amounts needs its currency among the grouped columns: the server says so, in Portuguese, at the amount.
    await expect.poll(() => describedError(second.getByLabel('Campo', { exact: true }))).toBe('Um total de valores precisa da coluna de moeda entre as colunas do agrupamento.');
    expect(await describedError(name)).toBeNull();
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    await shot(page, 'phone-report-errors', 'window');
    expect(await accessibilityViolations(page)).toEqual([]);

    await form.getByRole('button', { name: 'Adicionar coluna' }).click();
    const third = page.getByRole('group', { name: 'Coluna 3', exact: true });
    await third.getByLabel('Campo', { exact: true }).selectOption({ label: 'currency' });
    await grouping.getByLabel('currency').check();
    await form.getByRole('button', { name: 'Criar' }).click();
    await page.getByText('Relatório criado.').waitFor();
    const id = Number(/#\/reports\/(\d+)/.exec(page.url())?.[1]);
    const created = await service.get(`/reports/myreports/report/${id}`, { token: merchant.token });
    expect(created.body.name).toBe('Volume por status');
    expect(created.body.fields.map((f: any) => [f.field.id, f.alias, f.aggregation_operator])).toEqual([
      [1, 'transaction_status', null],
      [33, 'amount', 'SUM'],
      [34, 'currency', null],
    ]);
    expect(created.body.group_by).toEqual(['transaction_status', 'currency']);
    expect((await widths()).scroll).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
  });

  it('keeps what was typed into the sign-in form before the script loaded, and the field keeps the focus', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    // The script is held back until the fields have been typed into, as on a slow connection.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let scriptAsked = false;
    await page.route(/\/dashboard\/assets\/dashboard\.[0-9a-f]+\.js$/, async (route) => {
      scriptAsked = true;
      await released;
      await route.continue();
    });
    // A deferred script holds DOMContentLoaded back, so the wait is only for the page's first bytes.
    await page.goto(`${service.baseUrl}/dashboard`, { waitUntil: 'commit' });
    await expect.poll(() => scriptAsked).toBe(true);
    // The page's own form, before any script: its button waits for the script.
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign in' }).isDisabled()).toBe(true);
    await page.getByLabel('API key').pressSequentially(merchant.api_key);
    const half = Math.floor(merchant.api_secret.length / 2);
    await page.getByLabel('API secret').pressSequentially(merchant.api_secret.slice(0, half));
    expect(await page.evaluate(() => document.querySelector('header select'))).toBeNull();

    release();
    // The script has taken over when the language picker appears; the fields still hold what was typed.
    await page.locator('header select').waitFor();
    expect(await page.getByLabel('API key').inputValue()).toBe(merchant.api_key);
    expect(await page.getByLabel('API secret').inputValue()).toBe(merchant.api_secret.slice(0, half));
    // The secret field still has the focus: the rest of the secret goes on where the typing stopped.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('api-secret');
    await page.keyboard.type(merchant.api_secret.slice(half));
    await page.keyboard.press('Enter');
    await page.locator('header .merchant').waitFor();

    // Signed out again, the form starts empty: the early values are not kept in memory.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.getByLabel('API secret').inputValue()).toBe('');
    // Reloaded while signed in, the page sends no form (the script shows the session at once).
    await signIn(page, /^Sign in$/);
    const shell = await (await fetch(`${service.baseUrl}/dashboard`, { headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } })).text();
    expect(shell).toContain('<div id="app"></div>');
    expect(problems).toEqual([]);
  });
});
