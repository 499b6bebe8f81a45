import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestMerchant } from './harness';

/**
 * What the dashboard's browser tests share: Debian's chromium through playwright-core (missing, the suite
 * fails rather than skips: CI installs it), pages whose Content-Security-Policy, integrity and script
 * errors are collected, axe-core's WCAG 2.1 A and AA check, the sign-in and screenshots (to
 * test-artifacts/dashboard/, or docs/images/dashboard/ with DASHBOARD_SCREENSHOTS=docs).
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS =
  process.env.DASHBOARD_SCREENSHOTS === 'docs' ? new URL('../../../docs/images/dashboard/', import.meta.url) : new URL('../../../test-artifacts/dashboard/', import.meta.url);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface BrowserKit {
  readonly browser: Browser;
  /** Every CSP, integrity or script error any page has shown: a test ends by expecting none. */
  readonly problems: string[];
  /** A new page at `url`, in a context of its own (its viewport and locale). */
  open(url: string, options?: { viewport?: { width: number; height: number }; locale?: string }): Promise<Page>;
  close(): Promise<void>;
}

/** @example const kit = await startBrowser(); const page = await kit.open(`${service.baseUrl}/dashboard`); */
export async function startBrowser(): Promise<BrowserKit> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    browser,
    problems,
    async open(url, options = {}) {
      const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: options.locale ?? 'en-US' });
      contexts.push(context);
      // A step that cannot happen fails with its own message, well within the test's time.
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/Content Security Policy|integrity|Refused/i.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(url);
      return page;
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
    },
  };
}

/** The merchant dashboard's sign-in, with the label of its button in the page's language. */
export async function signIn(page: Page, merchant: TestMerchant, signInLabel: RegExp): Promise<void> {
  await page.getByLabel('API key').fill(merchant.api_key);
  await page.getByLabel('API secret').fill(merchant.api_secret);
  await page.getByRole('button', { name: signInLabel }).click();
  await page.locator('header .merchant').waitFor();
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/** axe-core's WCAG 2.1 A and AA violations on the page as it is now. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
