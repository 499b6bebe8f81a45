import { expect, it } from 'vitest';
import { generate } from './checkout-fixtures';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import type { App } from '../src/context';
import { describeEachEngine } from './harness';

/** Metric samples of one family: label set → value. */
function samples(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (match) found.set(match[1] ?? '', Number(match[2]));
  }
  return found;
}

/** A route that answers what the service believes about the client. */
function clientRoute(app: App): void {
  app.get('/ops/client', { config: { auth: 'public' } }, async (request) => ({ ip: request.ip, protocol: request.protocol }));
}

describeEachEngine('operations: business metrics', (service) => {
  const scrape = async () => {
    const response = await service().get('/metrics', { headers: { authorization: `Bearer ${service().ctx.adminToken}` } });
    expect(response.status).toBe(200);
    return response.text;
  };

  it('reports payments by method and status, accepted and settled totals, and processor latencies', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const tokens: string[] = [];
    for (const number of ['4111111111111111', '4000000000000002']) {
      const card = number === '4111111111111111' ? ids : await customerWithCard(service(), m, number);
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, card), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      tokens.push(sent.body.payment_token);
    }
    await Promise.all(tokens.map((t) => waitForStatus(service(), m, t, settled)));
    const statuses = (await service().ctx.db.selectFrom('payments').select('status').where('payment_token', 'in', tokens).execute()).map((p) => p.status);
    // Snapshots are reused for five seconds: wait out the one an earlier scrape may have left.
    await new Promise((r) => setTimeout(r, 5_100));
    const text = await scrape();
    expect(samples(text, 'colibri_business_metrics_up').get('')).toBe(1);
    const byStatus = samples(text, 'colibri_payments');
    const paid = statuses.filter((s) => s === 'PAID').length;
    expect(paid, statuses.join()).toBeGreaterThan(0);
    expect(byStatus.get('{method="CREDITCARD",status="PAID"}')).toBeGreaterThanOrEqual(paid);
    const accepted = samples(text, 'colibri_payments_accepted_total').get('{method="CREDITCARD"}') ?? 0;
    const settledTotal = samples(text, 'colibri_payments_settled_total').get('{method="CREDITCARD"}') ?? 0;
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(settledTotal).toBeGreaterThanOrEqual(paid);
    expect(settledTotal).toBeLessThan(accepted);
    expect(text).toMatch(/# TYPE colibri_payments_settled_total counter/);
    expect(samples(text, 'colibri_processor_request_duration_seconds_count').get('{operation="authorize",outcome="approved"}')).toBeGreaterThanOrEqual(1);
    for (const family of ['colibri_callbacks_pending', 'colibri_callbacks_oldest_pending_age_seconds', 'colibri_callbacks_failed', 'colibri_callbacks_recent_failed_attempts']) {
      expect(samples(text, family).size, family).toBe(1);
    }
  });

  it('reports queue depth and the oldest due job age per kind, read from the jobs table', async () => {
    const { ctx } = service();
    // A kind no worker handles stays due, so its age only grows.
    await ctx.db
      .insertInto('jobs')
      .values([
        { kind: 'ops.test', payload: JSON.stringify({}), run_at: new Date(Date.now() - 120_000) },
        { kind: 'ops.test', payload: JSON.stringify({}), run_at: new Date(Date.now() - 1_000) },
        { kind: 'ops.test', payload: JSON.stringify({}), run_at: new Date(Date.now() + 600_000) },
      ] as never)
      .execute();
    await new Promise((r) => setTimeout(r, 5_100));
    const text = await scrape();
    expect(samples(text, 'colibri_jobs_due').get('{kind="ops.test"}')).toBe(2);
    expect(samples(text, 'colibri_jobs_scheduled').get('{kind="ops.test"}')).toBe(1);
    const age = samples(text, 'colibri_jobs_oldest_due_age_seconds').get('{kind="ops.test"}') ?? 0;
    expect(age).toBeGreaterThanOrEqual(119);
    expect(age).toBeLessThan(200);
    await ctx.db.deleteFrom('jobs').where('kind', '=', 'ops.test').execute();
  });
}, { env: {} });

describeEachEngine(
  'operations: public address and trusted proxy',
  (service) => {
    it('builds checkout_url on PUBLIC_BASE_URL whatever address the request came to', async () => {
      const m = await service().merchant();
      const created = await generate(service(), m);
      expect(created.checkout_url).toBe(`https://pay.example.com/base/pay/${created.checkout_id}`);
    });

    it('takes the client address and protocol from X-Forwarded-* sent by a trusted proxy', async () => {
      const seen = await service().get('/ops/client', { headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' } });
      expect(seen.body).toEqual({ ip: '203.0.113.7', protocol: 'https' });
    });
  },
  { env: { PUBLIC_BASE_URL: 'https://pay.example.com/base/', COLIBRI_TRUST_PROXY: '127.0.0.1' }, routes: clientRoute },
);

describeEachEngine(
  'operations: absolute URLs without PUBLIC_BASE_URL',
  (service) => {
    it('follows X-Forwarded-Proto and -Host from a trusted proxy', async () => {
      const m = await service().merchant();
      const response = await service().post(
        '/checkout/generate',
        { amount: '10.00', asset: 'BRL', referenceId: 'order-proxy', contractId: m.contract_id, method: 'PIX' },
        { token: m.token, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop-pay.example.com' } },
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.checkout_url).toBe(`https://shop-pay.example.com/pay/${response.body.checkout_id}`);
    });
  },
  { env: { COLIBRI_TRUST_PROXY: '1' } },
);

describeEachEngine(
  'operations: an untrusted client',
  (service) => {
    it('has its own address and protocol whatever X-Forwarded-* it sends', async () => {
      const seen = await service().get('/ops/client', { headers: { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' } });
      expect(seen.body).toEqual({ ip: '127.0.0.1', protocol: 'http' });
    });

  it('cannot choose its own address or protocol with X-Forwarded-* headers', async () => {
    const m = await service().merchant();
    const response = await service().post(
      '/checkout/generate',
      { amount: '10.00', asset: 'BRL', referenceId: 'order-spoof', contractId: m.contract_id, method: 'PIX' },
      { token: m.token, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example.com' } },
    );
    expect(response.status).toBe(200);
    expect(response.body.checkout_url).toBe(`${service().baseUrl}/pay/${response.body.checkout_id}`);
  });
  },
  { routes: clientRoute },
);
