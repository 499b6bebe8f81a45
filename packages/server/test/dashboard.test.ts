import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { merchantNow } from '../src/clock/merchant-clock';
import { SESSION_COOKIE } from '../src/dashboard/sessions';
import { maskDestination } from '../src/dashboard/settlement-routes';
import { balanceDay } from '../src/ledger/ledger';
import { addDays, nextBusinessDay } from '../src/rails/calendar';
import { sweepSettlements } from '../src/settlements/sweep-settlements';
import { advanceClockPast } from './balance-fixtures';
import { customerWithCard, paymentBody, settled, settledCardPayment, waitForStatus } from './fixtures';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';

/**
 * The dashboard's JSON API over real HTTP on both engines: sign-in, the session cookie and its
 * attributes, CSRF and Origin rules, sign-out, expiry, isolation between merchants, and that its
 * actions and figures are those of the domain (a refund through the dashboard is a refund).
 */

interface Browser {
  cookie: string;
  csrf: string;
}

async function signIn(service: TestService, merchant: TestMerchant): Promise<Browser & { response: any }> {
  const response = await service.post('/dashboard/api/session', { apiKey: merchant.api_key, apiSecret: merchant.api_secret });
  expect(response.status, response.text).toBe(200);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const value = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
  expect(value).toBeTruthy();
  return { cookie: `${SESSION_COOKIE}=${value}`, csrf: response.body.csrf_token, response };
}

function as(browser: Browser, extra: Record<string, string> = {}) {
  return { headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf, ...extra } };
}

/** A one-page PDF, as small as a PDF gets. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

async function paidPayment(service: TestService, merchant: TestMerchant, reference: string) {
  const { token, details } = await settledCardPayment(service, merchant, { reference_id: reference });
  expect(details.general_info.transaction_status).toBe('PAID');
  return token;
}

describeEachEngine('dashboard API', (service) => {
  it('signs in with the API key and secret: an HttpOnly, SameSite=Strict cookie, stored only as a hash', async () => {
    const merchant = await service().merchant('Loja Cookie');
    const browser = await signIn(service(), merchant);
    const setCookie = browser.response.headers.get('set-cookie');
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\/dashboard/);
    expect(browser.response.body.merchant).toEqual({ id: merchant.merchant_id, name: 'Loja Cookie' });
    expect(browser.response.body.mode).toBe('sandbox');
    expect(browser.csrf).toMatch(/^[\w-]{40,}$/);

    const sessionId = decodeURIComponent(browser.cookie.split('=')[1]!);
    const rows = await service().ctx.db.selectFrom('dashboard_sessions').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).toBe(createHash('sha256').update(sessionId).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(sessionId);

    const again = await service().get('/dashboard/api/session', as(browser));
    expect(again.status).toBe(200);
    expect(again.body.csrf_token).toBe(browser.csrf);
    expect(again.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses wrong credentials, requests without a session and X-Auth-Token in place of the cookie', async () => {
    const merchant = await service().merchant();
    const wrong = await service().post('/dashboard/api/session', { apiKey: merchant.api_key, apiSecret: 'cs_wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await service().get('/dashboard/api/payments')).status).toBe(401);
    expect((await service().get('/dashboard/api/payments', { token: merchant.token })).status).toBe(401);
    expect((await service().get('/dashboard/api/payments', { headers: { cookie: `${SESSION_COOKIE}=forged` } })).status).toBe(401);
    const missing = await service().post('/dashboard/api/session', { apiKey: merchant.api_key });
    expect(missing.status).toBe(400);
  });

  it('needs the CSRF token of the session for every change, and an Origin of its own when one is sent', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const other = await signIn(service(), merchant);
    const rotate = (headers: Record<string, string>) => service().request('POST', '/dashboard/api/webhook-secret/rotate', undefined, { headers });

    const none = await rotate({ cookie: browser.cookie });
    expect(none.status).toBe(403);
    expect(none.body.errors[0].code).toBe('08.01.0001');
    // Another session's token does not fit this session.
    expect((await rotate({ cookie: browser.cookie, 'x-csrf-token': other.csrf })).status).toBe(403);
    const foreign = await rotate({ cookie: browser.cookie, 'x-csrf-token': browser.csrf, origin: 'https://attacker.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.errors[0].code).toBe('08.01.0002');
    const loginFromElsewhere = await service().post('/dashboard/api/session', { apiKey: merchant.api_key, apiSecret: merchant.api_secret }, { headers: { origin: 'https://attacker.example' } });
    expect(loginFromElsewhere.status).toBe(403);

    const ok = await rotate({ cookie: browser.cookie, 'x-csrf-token': browser.csrf, origin: service().baseUrl });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.webhook_secret).toMatch(/^whsec_/);
    // Reading needs no CSRF token.
    expect((await service().get('/dashboard/api/events', { headers: { cookie: browser.cookie } })).status).toBe(200);
  });

  it('signs out: the session row is gone and the cookie opens nothing', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const withoutToken = await service().request('DELETE', '/dashboard/api/session', undefined, { headers: { cookie: browser.cookie } });
    expect(withoutToken.status).toBe(403);
    const out = await service().request('DELETE', '/dashboard/api/session', undefined, as(browser));
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(new RegExp(`${SESSION_COOKIE}=;`));
    expect((await service().get('/dashboard/api/session', as(browser))).status).toBe(401);
  });

  it('ends expired sessions and sessions of disabled users', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    await service().ctx.db.updateTable('dashboard_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('merchant_id', '=', merchant.merchant_id).execute();
    expect((await service().get('/dashboard/api/session', as(browser))).status).toBe(401);

    const second = await service().merchant();
    const live = await signIn(service(), second);
    expect((await service().get('/dashboard/api/session', as(live))).status).toBe(200);
    await service().ctx.db.updateTable('users').set({ enabled: false }).where('merchant_id', '=', second.merchant_id).execute();
    expect((await service().get('/dashboard/api/session', as(live))).status).toBe(401);
  });

  it('finds a payment by reference and token, refunds it through the refund verb, and shows it in the overview', async () => {
    const merchant = await service().merchant();
    const intruder = await service().merchant();
    const token = await paidPayment(service(), merchant, 'dash-order-1');
    await paidPayment(service(), merchant, 'dash-order-2');
    const browser = await signIn(service(), merchant);

    const byReference = await service().get('/dashboard/api/payments?q=dash-order-1', as(browser));
    expect(byReference.status, byReference.text).toBe(200);
    expect(byReference.body.total).toBe(1);
    expect(byReference.body.rows[0]).toMatchObject({ payment_token: token, reference_id: 'dash-order-1', status: 'PAID', amount: '100.00', currency: 'BRL' });
    expect((await service().get(`/dashboard/api/payments?q=${token}`, as(browser))).body.rows.map((r: any) => r.payment_token)).toEqual([token]);
    const prefix = await service().get('/dashboard/api/payments?q=dash-order&status=PAID&method=CREDITCARD&size=1&page=1', as(browser));
    expect(prefix.body).toMatchObject({ total: 2, page: 1, size: 1 });
    expect(prefix.body.rows).toHaveLength(1);
    // A `%` is searched literally, not as a wildcard.
    expect((await service().get('/dashboard/api/payments?q=%25', as(browser))).body.total).toBe(0);
    const bad = await service().get('/dashboard/api/payments?status=NOPE', as(browser));
    expect(bad.status).toBe(400);

    const other = await signIn(service(), intruder);
    expect((await service().get('/dashboard/api/payments?q=dash-order-1', as(other))).body.total).toBe(0);
    expect((await service().get(`/dashboard/api/payments/${token}`, as(other))).status).toBe(404);

    const refund = await service().post(`/dashboard/api/payments/${token}/refund`, { amount: 40 }, as(browser));
    expect(refund.status, refund.text).toBe(200);
    const stored = await service().get(`/refund/${refund.body.refund_id}`, { token: merchant.token });
    expect(stored.body).toMatchObject({ payment_token: token, amount: 40, currency: 'BRL' });
    // The verb's rules hold: no more than what is left.
    const tooMuch = await service().post(`/dashboard/api/payments/${token}/refund`, { amount: 1000 }, as(browser));
    expect(tooMuch.status).toBe(400);

    const details = await service().get(`/dashboard/api/payments/${token}`, as(browser));
    expect(details.body.refunds.map((r: any) => r.refund_id)).toContain(refund.body.refund_id);

    const overview = await service().get('/dashboard/api/overview', as(browser));
    expect(overview.status, overview.text).toBe(200);
    expect(overview.body.days).toHaveLength(30);
    const today = overview.body.days.length - 1;
    expect(overview.body.volume.CREDITCARD[today]).toBe('200.00');
    expect(overview.body.approval_rate[today]).toBe(1);
    expect(overview.body.refunds[today]).toBe('40.00');
    expect((await service().get('/dashboard/api/overview?from=2026-02-01&to=2026-01-01', as(browser))).status).toBe(400);
  });

  it('captures and cancels pre-authorisations, and runs the sandbox controls, lists and report export of its own merchant', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const ids = await customerWithCard(service(), merchant);
    const preAuthorize = async () => {
      const sent = await service().post('/checkout/sendPayment', paymentBody(merchant, ids, { payment: { amount: '80.00', delay_capture: true } }), { token: merchant.token });
      expect(sent.status, sent.text).toBe(200);
      await waitForStatus(service(), merchant, sent.body.payment_token, settled);
      return sent.body.payment_token as string;
    };
    const first = await preAuthorize();
    const second = await preAuthorize();
    const capture = await service().post(`/dashboard/api/payments/${first}/capture`, { amount: 30 }, as(browser));
    expect(capture.status, capture.text).toBe(200);
    await waitForStatus(service(), merchant, first, (s) => s === 'PAID');
    const cancel = await service().post(`/dashboard/api/payments/${second}/cancel`, undefined, as(browser));
    expect(cancel.status, cancel.text).toBe(200);
    await waitForStatus(service(), merchant, second, (s) => s === 'CANCELED');
    // The verbs' state rules answer through the dashboard as through the API.
    expect((await service().post(`/dashboard/api/payments/${second}/capture`, { amount: 1 }, as(browser))).status).toBe(422);

    const clock = await service().post('/dashboard/api/sandbox/clock/advance', { seconds: 3600 }, as(browser));
    expect(clock.status).toBe(200);
    expect(Date.parse(clock.body.now) - Date.now()).toBeGreaterThan(3_500_000);
    const fault = await service().post('/dashboard/api/sandbox/faults', { operation: 'authorize', fault: 'TIMEOUT', times: 3 }, as(browser));
    expect(fault.body).toEqual({ operation: 'authorize', fault: 'TIMEOUT', remaining: 3 });
    await service().post('/dashboard/api/sandbox/faults', { operation: 'authorize', fault: 'TIMEOUT', times: 0 }, as(browser));

    const checkout = await service().post('/checkout/generate', { amount: '10.00', asset: 'BRL', referenceId: 'pix-dash', contractId: merchant.contract_id, method: 'PIX' }, { token: merchant.token });
    expect(checkout.status, checkout.text).toBe(200);
    // A single-method session starts its PIX payment at generation, which the sandbox control then pays.
    const listed = await service().get('/dashboard/api/checkouts?status=PROCESSING', as(browser));
    expect(listed.body.rows.map((c: any) => c.checkout_id)).toEqual([checkout.body.checkout_id]);
    expect((await service().get(new URL(checkout.body.checkout_url).pathname)).status).toBe(200);
    const session = await service().get(`/dashboard/api/checkouts/${checkout.body.checkout_id}`, as(browser));
    const pix = session.body.payments.find((p: any) => p.method === 'PIX');
    const paid = await service().post(`/dashboard/api/sandbox/payments/${pix.payment_token}/pay`, undefined, as(browser));
    expect(paid.body).toMatchObject({ method: 'PIX', transaction_status: 'PAID' });

    const reports = await service().get('/dashboard/api/reports', as(browser));
    const report = reports.body.content.find((r: any) => r.enable);
    expect(report).toBeTruthy();
    const exported = await service().get(`/dashboard/api/reports/${report.id}/export?format=csv`, as(browser));
    expect(exported.status, exported.text).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/text\/csv/);
    expect(exported.text.split('\n')[0]).toContain(',');

    const other = await signIn(service(), await service().merchant());
    expect((await service().get('/dashboard/api/checkouts', as(other))).body.total).toBe(0);
    expect((await service().get(`/dashboard/api/reports/${report.id}`, as(other))).status).toBe(404);
    expect((await service().post(`/dashboard/api/payments/${first}/refund`, {}, as(other))).status).toBe(404);
  });

  it('gives the report editor its choices, creates a report and answers a bad definition with field paths', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const catalogue = await service().get('/dashboard/api/report-fields', as(browser));
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.report_types).toEqual(['MERCHANT', 'PAYIN']);
    const amount = catalogue.body.fields.find((f: any) => f.name === 'amount');
    expect(amount).toMatchObject({ id: 33, type: 'money', masked: false, report_types: ['MERCHANT', 'PAYIN'] });
    expect(catalogue.body.fields.find((f: any) => f.name === 'tax_id').masked).toBe(true);
    expect(catalogue.body.operators_by_type.money).toContain('>=');
    expect(catalogue.body.aggregations_by_type.string).toEqual(['COUNT']);
    expect(JSON.stringify(catalogue.body)).not.toMatch(/select|amount_minor/i);

    const definition = {
      name: 'Pagos por método',
      folder: '',
      report_type: 'PAYIN',
      enable: true,
      fields: [
        { field: { id: 4 }, position: 1, alias: 'Método' },
        { field: { id: 2 }, position: 2, alias: 'Pagamentos', aggregation_operator: 'COUNT' },
      ],
      filters: [{ field: { id: 1 }, position: 1, filter_operator: '=', value: 'PAID', logical_operator: 'AND', dynamic_filter: false }],
      group_by: ['Método'],
      order_by: [],
    };
    const bad = await service().post(
      '/dashboard/api/reports',
      { ...definition, filters: [{ ...definition.filters[0], field: { id: 33 }, filter_operator: '>=', value: '10,00' }] },
      as(browser),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ code: '05.01.0004', description: expect.stringMatching(/^filters\[0\]\.value: /) }]);
    // The CSRF token is needed to create, as for every change.
    expect((await service().post('/dashboard/api/reports', definition, { headers: { cookie: browser.cookie } })).status).toBe(403);

    const created = await service().post('/dashboard/api/reports', definition, as(browser));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Pagos por método', report_type: 'PAYIN', group_by: ['Método'] });
    const listed = await service().get(`/reports/myreports/report/${created.body.id}`, { token: merchant.token });
    expect(listed.body.fields.map((f: any) => f.alias)).toEqual(['Método', 'Pagamentos']);
    const other = await signIn(service(), await service().merchant());
    expect((await service().get(`/dashboard/api/reports/${created.body.id}`, as(other))).status).toBe(404);
  });

  it('answers disputes through the disputes verbs: the list with the merchant clock, text evidence, a PDF uploaded and downloaded, submit; the sandbox acquirer; another merchant sees none of it', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const token = await paidPayment(service(), merchant, 'dash-dispute-1');
    const opened = await service().post(`/dashboard/api/sandbox/payments/${token}/dispute`, undefined, as(browser));
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body).toMatchObject({ payment_token: token, reference_id: 'dash-dispute-1', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', reason_category: 'FRAUD', amount: 100 });
    const id: string = opened.body.dispute_id;
    // A day on the merchant's clock: `now` is that clock, the one the deadline is kept on.
    await service().post('/sandbox/clock/advance', { seconds: 86_400 }, { token: merchant.token });
    const clock = (await service().get('/sandbox/clock', { token: merchant.token })).body.now as string;

    const list = await service().get('/dashboard/api/disputes?status=NEEDS_RESPONSE', as(browser));
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 0, size: 20 });
    expect(list.body.rows.map((r: any) => [r.dispute_id, r.evidence_due_by])).toEqual([[id, opened.body.evidence_due_by]]);
    expect(Math.abs(Date.parse(`${list.body.now.replace(' ', 'T')}Z`) - Date.parse(clock))).toBeLessThan(5_000);
    expect((await service().get('/dashboard/api/disputes?status=WON', as(browser))).body.total).toBe(0);
    expect((await service().get('/dashboard/api/disputes?status=OPEN', as(browser))).status).toBe(400);

    const text = await service().post(`/dashboard/api/disputes/${id}/evidence`, { shipping_carrier: 'Correios' }, as(browser));
    expect(text.status, text.text).toBe(200);
    expect(text.body.evidence.shipping_carrier).toBe('Correios');
    // Changes need the session's CSRF token, as everywhere in the dashboard.
    const form = () => {
      const body = new FormData();
      body.append('kind', 'receipt');
      body.append('file', new Blob([PDF], { type: 'application/pdf' }), 'recibo.pdf');
      return body;
    };
    expect((await service().request('POST', `/dashboard/api/disputes/${id}/evidence`, undefined, { raw: form(), headers: { cookie: browser.cookie } })).status).toBe(403);
    const uploaded = await service().request('POST', `/dashboard/api/disputes/${id}/evidence`, undefined, { raw: form(), ...as(browser) });
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.evidence.files).toEqual([expect.objectContaining({ kind: 'receipt', filename: 'recibo.pdf', content_type: 'application/pdf', size: PDF.length })]);
    // The API's checks and codes: a file that is no PDF, JPEG or PNG by its content stores nothing.
    const fake = new FormData();
    fake.append('file', new Blob(['just text'], { type: 'application/pdf' }), 'fake.pdf');
    const refused = await service().request('POST', `/dashboard/api/disputes/${id}/evidence`, undefined, { raw: fake, ...as(browser) });
    expect(refused.status).toBe(415);
    expect(refused.body.errors[0].code).toBe('09.02.0003');
    const fileId: string = uploaded.body.evidence.files[0].file_id;
    const download = await fetch(`${service().baseUrl}/dashboard/api/disputes/${id}/evidence/${fileId}`, { headers: { cookie: browser.cookie } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="recibo\.pdf"/);
    expect(download.headers.get('cache-control')).toMatch(/no-store/);
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);

    // Another merchant's session finds neither the dispute nor its file, and changes nothing.
    const other = await signIn(service(), await service().merchant());
    expect((await service().get('/dashboard/api/disputes', as(other))).body.total).toBe(0);
    expect((await service().get(`/dashboard/api/disputes/${id}`, as(other))).status).toBe(404);
    expect((await service().get(`/dashboard/api/disputes/${id}/evidence/${fileId}`, as(other))).status).toBe(404);
    expect((await service().post(`/dashboard/api/disputes/${id}/evidence`, { refund_policy: 'x' }, as(other))).status).toBe(404);
    expect((await service().request('POST', `/dashboard/api/disputes/${id}/evidence`, undefined, { raw: form(), ...as(other) })).status).toBe(404);
    expect((await service().post(`/dashboard/api/disputes/${id}/submit`, undefined, as(other))).status).toBe(404);
    expect((await service().post(`/dashboard/api/disputes/${id}/accept`, undefined, as(other))).status).toBe(404);
    expect((await service().post(`/dashboard/api/sandbox/disputes/${id}/close`, { outcome: 'WON' }, as(other))).status).toBe(404);

    const submitted = await service().post(`/dashboard/api/disputes/${id}/submit`, undefined, as(browser));
    expect(submitted.status, submitted.text).toBe(200);
    expect(submitted.body.status).toBe('UNDER_REVIEW');
    const api = await service().get(`/disputes/${id}`, { token: merchant.token });
    expect(api.body).toMatchObject({ status: 'UNDER_REVIEW', evidence: { shipping_carrier: 'Correios', files: [expect.objectContaining({ file_id: fileId })] } });
    // Final: no more evidence, no acceptance.
    expect((await service().post(`/dashboard/api/disputes/${id}/evidence`, { refund_policy: 'x' }, as(browser))).body.errors[0].code).toBe('09.02.0001');
    expect((await service().post(`/dashboard/api/disputes/${id}/accept`, undefined, as(browser))).status).toBe(409);
    const won = await service().post(`/dashboard/api/sandbox/disputes/${id}/close`, { outcome: 'WON' }, as(browser));
    expect(won.status, won.text).toBe(200);
    expect((await service().get(`/disputes/${id}`, { token: merchant.token })).body.status).toBe('WON');
  });

  it('shows the balance of GET /balance, the money becoming available by day, and the balance transactions with their sources; another merchant sees none of it', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    const empty = await service().get('/dashboard/api/balance', as(browser));
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ horizon_days: 60, balances: [], upcoming: [] });

    const token = await paidPayment(service(), merchant, 'dash-balance-1');
    const refund = await service().post('/refund', { payment_token: token, amount: 10 }, { token: merchant.token });
    expect(refund.status, refund.text).toBe(200);
    await waitForStatus(service(), merchant, token, (s) => s === 'PARTIALLY_REFUNDED');
    const dispute = await service().post(`/sandbox/payments/${token}/dispute`, { amount: 50 }, { token: merchant.token });
    expect(dispute.status, dispute.text).toBe(200);

    // The figures are those of the API, as exact decimals.
    const api = await service().get('/balance', { token: merchant.token });
    const dash = await service().get('/dashboard/api/balance', as(browser));
    expect(dash.status, dash.text).toBe(200);
    expect(dash.body.balances.map((b: any) => ({ asset: b.currency, available: Number(b.available), pending: Number(b.pending), reserved: Number(b.reserved) }))).toEqual(api.body.balances);
    // 100.00 less 3.76 in fees waits for its day; the refund, the dispute and its fee left at once; the dispute holds 50.
    expect(dash.body.balances).toEqual([{ currency: 'BRL', available: '-75.00', pending: '96.24', reserved: '50.00' }]);

    // Upcoming: the payment's day, within the next 60 days of the merchant's BRL day; the hold has no day.
    const payment = (await service().get('/balance/transactions?type=PAYMENT', { token: merchant.token })).body.content[0];
    const [brl] = dash.body.upcoming;
    expect(brl.currency).toBe('BRL');
    expect(brl.days).toHaveLength(60);
    expect(brl.days[0] > brl.today).toBe(true);
    expect(brl.days[59]).toBe(brl.until);
    const at = brl.days.indexOf(payment.available_on);
    expect(at).toBeGreaterThan(0);
    expect([brl.pending[at], brl.reserved[at]]).toEqual(['96.24', '0.00']);
    expect(brl.pending.filter((p: string) => p !== '0.00')).toEqual(['96.24']);
    expect(brl.reserved.every((r: string) => r === '0.00')).toBe(true);
    expect(brl.later).toEqual({ pending: '0.00', reserved: '0.00' });
    expect(brl.held).toBe('50.00');

    // Transactions, newest first, each leading to its payment or dispute; the type filter.
    const listed = await service().get('/dashboard/api/balance/transactions?size=100', as(browser));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject({ total: 5, page: 0, size: 100 });
    const disputeSource = { kind: 'dispute', id: dispute.body.dispute_id, reference: 'dash-balance-1' };
    const paymentSource = { kind: 'payment', id: token, reference: 'dash-balance-1' };
    expect(listed.body.rows.map((r: any) => [r.type, r.net, r.reserved, r.source])).toEqual(
      expect.arrayContaining([
        ['PAYMENT', 96.24, false, paymentSource],
        ['REFUND', -10, false, paymentSource],
        ['DISPUTE', -50, false, disputeSource],
        ['DISPUTE', 50, true, disputeSource],
        ['FEE', -15, false, disputeSource],
      ]),
    );
    const refunds = await service().get('/dashboard/api/balance/transactions?type=REFUND', as(browser));
    expect(refunds.body.rows.map((r: any) => [r.type, r.source_id])).toEqual([['REFUND', String(refund.body.refund_id)]]);
    const paged = await service().get('/dashboard/api/balance/transactions?size=2&page=2', as(browser));
    expect(paged.body).toMatchObject({ total: 5, page: 2, size: 2 });
    expect(paged.body.rows).toHaveLength(1);
    expect((await service().get('/dashboard/api/balance/transactions?type=NOPE', as(browser))).status).toBe(400);

    // Only with the session's cookie, and only the merchant's own.
    expect((await service().get('/dashboard/api/balance')).status).toBe(401);
    expect((await service().get('/dashboard/api/balance', { token: merchant.token })).status).toBe(401);
    const other = await signIn(service(), await service().merchant());
    expect((await service().get('/dashboard/api/balance', as(other))).body).toEqual({ horizon_days: 60, balances: [], upcoming: [] });
    expect((await service().get('/dashboard/api/balance/transactions', as(other))).body.total).toBe(0);

    // 31 days later on the merchant's clock (or more, to pass the payment's day) the payment is available; the
    // dispute, unanswered, was lost on its deadline, so nothing is held any more and nothing is upcoming.
    await advanceClockPast(service(), merchant, payment.available_on, 31);
    expect((await service().get(`/disputes/${dispute.body.dispute_id}`, { token: merchant.token })).body.status).toBe('LOST');
    const later = await service().get('/dashboard/api/balance', as(browser));
    expect(later.body.balances).toEqual([{ currency: 'BRL', available: '21.24', pending: '0.00', reserved: '0.00' }]);
    expect(later.body.upcoming).toEqual([]);
  });

  it('lists the settlements with their destination masked, shows the settings, and pauses and resumes them through the settings verb with the CSRF token; another merchant sees none of it', async () => {
    const merchant = await service().merchant();
    const browser = await signIn(service(), merchant);
    expect((await service().get('/dashboard/api/settlements', as(browser))).body).toEqual({ rows: [], total: 0, page: 0, size: 20 });
    expect((await service().get('/dashboard/api/settlements/settings', as(browser))).body).toEqual({ paused: false, held: false, currencies: [] });
    const set = await service().request('PUT', '/settlements/settings', { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: 'financeiro@loja.com.br' } }] }, { token: merchant.token });
    expect(set.status, set.text).toBe(200);
    const settings = await service().get('/dashboard/api/settlements/settings', as(browser));
    expect(settings.body).toEqual({
      paused: false,
      held: false,
      currencies: [{ currency: 'BRL', minimum: '50.00', destination: { kind: 'PIX_KEY', pix_key_type: 'EMAIL', masked: 'f*********@loja.com.br' } }],
    });
    expect(settings.text).not.toContain('financeiro');

    // The pause: a change, so only with the session's CSRF token; the API reads what the dashboard set.
    const pause = (body: unknown, headers: Record<string, string>) => service().request('PUT', '/dashboard/api/settlements/settings', body, { headers });
    const refused = await pause({ paused: true }, { cookie: browser.cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].code).toBe('08.01.0001');
    expect((await service().get('/settlements/settings', { token: merchant.token })).body.paused).toBe(false);
    expect((await pause({ paused: 'yes' }, as(browser).headers)).status).toBe(400);
    const paused = await pause({ paused: true }, as(browser).headers);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, held: false, currencies: [expect.objectContaining({ currency: 'BRL' })] });
    expect((await service().get('/settlements/settings', { token: merchant.token })).body).toMatchObject({ paused: true, currencies: [{ asset: 'BRL', minimum: 50 }] });

    // Paused, a business day with money available makes no settlement; resumed, the next one does.
    await paidPayment(service(), merchant, 'dash-settle-1');
    const today = balanceDay(await merchantNow(service().ctx.db, merchant.merchant_id), 'BRL');
    const day = nextBusinessDay(addDays(today, 35));
    const clockTo = async (target: string) => {
      const seconds = Math.ceil((Date.parse(`${target}T15:00:00Z`) - (await merchantNow(service().ctx.db, merchant.merchant_id)).getTime()) / 1000);
      expect((await service().post('/sandbox/clock/advance', { seconds }, { token: merchant.token })).status).toBe(200);
      await sweepSettlements(service().ctx);
    };
    await clockTo(day);
    expect((await service().get('/dashboard/api/settlements', as(browser))).body.total).toBe(0);
    expect((await service().get('/dashboard/api/balance', as(browser))).body.balances).toEqual([{ currency: 'BRL', available: '96.24', pending: '0.00', reserved: '0.00' }]);
    expect((await pause({ paused: false }, as(browser).headers)).body.paused).toBe(false);
    await clockTo(nextBusinessDay(addDays(day, 1)));
    const listed = await service().get('/dashboard/api/settlements', as(browser));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.total).toBe(1);
    const [row] = listed.body.rows;
    const api = (await service().get(`/settlements/${row.settlement_id}`, { token: merchant.token })).body;
    expect(row).toMatchObject({ amount: 96.24, asset: 'BRL', settlement_date: api.settlement_date, arrival_date: api.arrival_date, failure_code: null });
    expect(['PENDING', 'IN_TRANSIT', 'PAID']).toContain(row.status);
    expect(row.destination).toEqual({ kind: 'PIX_KEY', pix_key_type: 'EMAIL', masked: 'f*********@loja.com.br' });
    expect(listed.text).not.toContain('financeiro');
    expect((await service().get('/dashboard/api/settlements?status=FAILED', as(browser))).body.total).toBe(0);
    expect((await service().get('/dashboard/api/settlements?status=LOST', as(browser))).status).toBe(400);
    // Its balance transaction leads to it by its date.
    const settled = await service().get('/dashboard/api/balance/transactions?type=SETTLEMENT', as(browser));
    expect(settled.body.rows.map((r: any) => [r.net, r.source])).toEqual([[-96.24, { kind: 'settlement', id: row.settlement_id, reference: api.settlement_date }]]);

    // Another merchant's session sees none of it, and its pause is its own.
    const other = await signIn(service(), await service().merchant());
    expect((await service().get('/dashboard/api/settlements', as(other))).body.total).toBe(0);
    expect((await service().get('/dashboard/api/settlements/settings', as(other))).body).toEqual({ paused: false, held: false, currencies: [] });
    expect((await pause({ paused: true }, as(other).headers)).status).toBe(200);
    expect((await service().get('/settlements/settings', { token: merchant.token })).body.paused).toBe(false);
  });

  it('serves the page with a strict CSP, no inline script, and hashed assets', async () => {
    const page = await service().get('/dashboard', { headers: { 'accept-language': 'pt-BR,pt;q=0.9' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe');
    expect(page.text).toContain('<html lang="pt-BR">');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.js)"/.exec(page.text)?.[1];
    expect(script).toBeTruthy();
    const asset = await service().get(script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await service().get('/dashboard/assets/dashboard.000000000000.js')).status).toBe(404);
    expect((await service().get('/dashboard', { headers: { 'accept-language': 'es-MX,es;q=0.9' } })).text).toContain('<html lang="es">');
    expect((await service().get('/dashboard', { headers: { 'accept-language': 'de-DE' } })).text).toContain('<html lang="en">');
  });
});

describe('settlement destinations in the dashboard', () => {
  it('hides most of each kind of account, enough to know it', () => {
    const pix = (pix_key: string, pix_key_type: string) => maskDestination({ kind: 'PIX_KEY', pix_key, pix_key_type }).masked;
    expect(pix('financeiro@loja.com.br', 'EMAIL')).toBe('f*********@loja.com.br');
    expect(pix('52998224725', 'CPF')).toBe('***.982.247-**');
    expect(pix('12ABC34501DE35', 'CNPJ')).toBe('**.ABC.345/****-**');
    expect(pix('+5511987654321', 'PHONE')).toBe('+*********4321');
    expect(pix('3ce48eec-58b6-4fd5-a8e2-b9e78b9a348f', 'EVP')).toBe('********-****-****-****-********348f');
    const bank = maskDestination({ kind: 'BANK_ACCOUNT', type: 'CHECKING', bank_number: '341', agency_number: '1234', agency_check_digit: '5', account_number: '12345678', account_check_digit: '9' });
    expect(bank).toEqual({ kind: 'BANK_ACCOUNT', masked: '341 / 1234-5 / *****678-9' });
    expect(maskDestination({ kind: 'BANK_ACCOUNT', type: 'SAVINGS', bank_number: '001', agency_number: '12', agency_check_digit: null, account_number: '7', account_check_digit: 'X' }).masked).toBe('001 / 12 / *-*');
    expect(maskDestination({ kind: 'CLABE', bank_code: '002', clabe: '002010077777777771' })).toEqual({ kind: 'CLABE', masked: '**************7771' });
  });
});
