import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowser, type BrowserKit } from './browser-kit';
import { startTestService, type TestService } from './harness';

/**
 * The API reference in chromium (docs/conventions.md, "API reference"): `/docs` and `/docs/operator` load
 * with no console error and no Content-Security-Policy violation, branded Colibri, the merchant's tags in
 * the order of an integration, no operator route in the merchant's page, and code samples per operation.
 */
describe('API reference in the browser', () => {
  let service: TestService;
  let kit: BrowserKit;

  beforeAll(async () => {
    service = await startTestService('pglite');
    kit = await startBrowser();
  });
  afterAll(async () => {
    await kit?.close();
    await service?.close();
  });

  /** Opens a reference page, recording every console error and CSP violation from its first script on. */
  async function openReference(path: string): Promise<{ page: Page; errors: string[] }> {
    const errors: string[] = [];
    const context = await kit.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`)),
    );
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
    await page.goto(`${service.baseUrl}${path}`);
    await page.locator('.opblock-tag').first().waitFor();
    return { page, errors };
  }

  const tagNames = (page: Page) => page.locator('.opblock-tag').evaluateAll((tags) => tags.map((t) => t.getAttribute('data-tag')));

  it('shows the merchant API branded Colibri, its tags in integration order, without operator routes, and with no console error', async () => {
    const { page, errors } = await openReference('/docs');
    expect(await page.title()).toBe('Colibri payments API reference');
    await expect(page.locator('header.colibri-top').textContent()).resolves.toContain('Colibri API reference');
    // Swagger's own top bar and logo are not on the page.
    expect(await page.locator('.topbar, .topbar-wrapper, svg[class*="logo"]').count()).toBe(0);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/colibri\.svg$/);
    expect(await tagNames(page)).toEqual(['Authentication', 'Checkout', 'Persons and cards', 'Payments', '3DS', 'Refunds', 'Payouts', 'Subscriptions', 'Reports', 'Transaction details', 'Balance', 'Disputes', 'Callbacks', 'Sandbox']);
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => /^\/(admin|connectors|pay|healthz|readyz)\b/.test(p.replace(/\u200b/g, '')))).toEqual([]);

    // An operation opened shows its curl and SDK samples.
    await page.locator('#operations-Refunds-createRefund button.opblock-summary-control').click();
    const description = page.locator('#operations-Refunds-createRefund .opblock-description-wrapper').first();
    await expect(description.textContent()).resolves.toContain('curl -X POST "http://127.0.0.1:8080/refund"');
    await expect(description.textContent()).resolves.toContain("colibri.api.POST('/refund'");
    expect(errors).toEqual([]);
    expect(kit.problems).toEqual([]);
  }, 60_000);

  it('shows the operator and internal API on a page of its own, with no console error', async () => {
    const { page, errors } = await openReference('/docs/operator');
    expect(await page.title()).toBe('Colibri operator and internal API reference');
    expect(await tagNames(page)).toEqual(['System', 'Admin', 'Connectors', 'Checkout page']);
    const paths = (await page.locator('.opblock-summary-path').allTextContents()).map((p) => p.replace(/\u200b/g, ''));
    expect(paths).toContain('/admin/merchants');
    expect(paths.every((p) => /^\/(admin|connectors|pay|healthz|readyz)\b/.test(p))).toBe(true);
    await expect(page.locator('header.colibri-top a[aria-current="page"]').textContent()).resolves.toBe('Operator and internal API');
    expect(errors).toEqual([]);
  }, 60_000);
});
