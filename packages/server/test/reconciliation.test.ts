import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { settledCardPayment, waitForStatus } from './fixtures';

/**
 * Reconciliation (docs/reconciliation.md): the simulator's settlement report imported back matches
 * everything; planted differences are found, each with its reason; the same file twice is one run; a
 * malformed file is refused whole, naming the line and column, and stores nothing; a line is resolved
 * by an adjustment whose journal keeps the books in agreement.
 */

/**
 * The balance is its transactions, and the ledger agrees (as test/balance.test.ts checks after every
 * other kind of movement): the nets of a merchant's balance transactions add up per currency to
 * available + pending + reserved, and to what the ledger's balance accounts owe the merchant.
 */
async function assertBooksAgree(service: TestService, m: TestMerchant) {
  const api = await service.get('/balance', { token: m.token });
  expect(api.status).toBe(200);
  const transactions: { net: number; asset: string; type: string }[] = [];
  for (let page = 0; ; page += 1) {
    const listed = await service.get(`/balance/transactions?size=100&page=${page}`, { token: m.token });
    transactions.push(...listed.body.content);
    if (listed.body.last) break;
  }
  const ledger = await sql<{ currency: string; owed: string }>`
    select currency, (-sum(amount_minor))::text as owed from ledger_entries
    where merchant_id = ${m.merchant_id} and account in ('merchant_payable', 'reserve_held', 'disputes_held') group by currency`.execute(service.ctx.db);
  for (const b of api.body.balances as { asset: string; available: number; pending: number; reserved: number }[]) {
    const cents = (n: number) => Math.round(n * 100);
    const nets = transactions.filter((t) => t.asset === b.asset).reduce((sum, t) => sum + cents(t.net), 0);
    expect(cents(b.available) + cents(b.pending) + cents(b.reserved), `${b.asset}: balance = sum of nets`).toBe(nets);
    expect(String(nets), `${b.asset}: the ledger owes as much`).toBe(ledger.rows.find((r) => r.currency === b.asset)?.owed);
  }
  return transactions;
}

const HEADER_COLUMNS = 30;

describeEachEngine('reconciliation', (service) => {
  const admin = () => ({ authorization: `Bearer ${service().ctx.adminToken}` });
  const importCsv = (csv: string, processor = 'sandbox', headers: Record<string, string> = {}) =>
    service().request('POST', `/admin/reconciliation/imports?processor=${processor}`, undefined, { raw: csv, headers: { ...admin(), 'content-type': 'text/csv', ...headers } });
  const today = async (m: TestMerchant) => String((await service().get('/sandbox/clock', { token: m.token })).body.now).slice(0, 10);
  const report = async (m: TestMerchant, date: string) => {
    const answer = await service().get(`/sandbox/settlement-report?date=${date}`, { token: m.token });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/csv/);
    return answer.text;
  };
  const run = async (runId: string, query = '') => (await service().get(`/admin/reconciliation/runs/${runId}${query}`, { headers: admin() })).body;
  const stored = async () => {
    const { rows } = await sql<{ runs: string; lines: string; other: string; adjustments: string }>`
      select (select count(*) from reconciliation_runs)::text as runs, (select count(*) from reconciliation_lines)::text as lines,
        (select count(*) from reconciliation_unattributed_lines)::text as other, (select count(*) from balance_adjustments)::text as adjustments`.execute(service().ctx.db);
    return rows[0];
  };
  /** The report's line whose Modification Merchant Reference (column 22) starts with the payment's token. */
  const lineOf = (csv: string, token: string, type = 'Settled') => {
    const found = csv.split('\n').find((l) => l.split(',')[21]?.startsWith(token) && l.split(',')[7] === type);
    if (!found) throw new Error(`no ${type} line of ${token}`);
    return found;
  };
  const withColumn = (line: string, index: number, value: string) => line.split(',').map((v, i) => (i === index ? value : v)).join(',');

  it("matches everything in the simulator's report of the day, and answers a repeated import with its first run", async () => {
    const m = await service().merchant();
    const { token: sale } = await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    const held = await settledCardPayment(service(), m, { payment: { amount: '40.00', delay_capture: true } });
    expect((await service().post(`/checkout/${held.token}/capture`, { amount: 30 }, { token: m.token })).status).toBe(200);
    await waitForStatus(service(), m, held.token, (s) => s === 'PAID');
    expect((await service().post('/refund', { payment_token: sale, amount: 10 }, { token: m.token })).status).toBe(200);
    await waitForStatus(service(), m, sale, (s) => s === 'PARTIALLY_REFUNDED');

    const csv = await report(m, await today(m));
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]?.split(',')).toHaveLength(HEADER_COLUMNS);
    expect(lines[0]).toMatch(/^Company Account,Merchant Account,Psp Reference,Merchant Reference,Payment Method,Creation Date,TimeZone,Type,Modification Reference,Gross Currency,Gross Debit \(GC\),Gross Credit \(GC\)/);
    expect(lines).toHaveLength(4);
    // The sale: 100.00 less the simulator's 2% (interchange 1.30, scheme fees 0.10, markup 0.60).
    const settled = lineOf(csv, sale).split(',');
    expect([settled[1], settled[3], settled[7], settled[9], settled[11], settled[15], settled[17], settled[18], settled[19]]).toEqual([
      m.merchant_id, `${sale}:authorize`, 'Settled', 'BRL', '100.00', '98.00', '0.60', '0.10', '1.30',
    ]);
    expect(lineOf(csv, sale, 'Refunded').split(',').slice(10, 16)).toEqual(['10.00', '', '1', 'BRL', '10.00', '']);

    const before = await stored();
    const first = await importCsv(csv);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ processor: 'sandbox', lines: 3, matched: 3, mismatched: 0, missing_in_colibri: 0, missing_at_processor: 0, informational: 0 });
    expect((await run(first.body.run_id)).unmatched).toMatchObject({ content: [], totalElements: 0 });

    const again = await importCsv(csv);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const after = await stored();
    expect(Number(after?.runs)).toBe(Number(before?.runs) + 1);
    expect(after?.lines).toBe(before?.lines);
  });

  it('finds a wrong amount, a wrong fee, an unknown reference, and a missing line once past its settlement date', async () => {
    const m = await service().merchant();
    const day = await today(m);
    const tokens: string[] = [];
    for (const amount of ['10.00', '20.00', '30.00', '40.00']) tokens.push((await settledCardPayment(service(), m, { payment: { amount } })).token);
    const [wrongAmount, wrongFee, removed, kept] = tokens as [string, string, string, string];
    const original = await report(m, day);

    // Not yet past its date (the simulator settles on the next business day): a line left out is not missing yet.
    const withoutEarly = original.split('\n').filter((l) => !l.includes(removed)).join('\n');
    const early = await importCsv(withoutEarly);
    expect(early.body).toMatchObject({ lines: 3, matched: 3, missing_at_processor: 0 });

    await service().post('/sandbox/clock/advance', { seconds: 7 * 86_400 }, { token: m.token });
    const planted = original
      .split('\n')
      .filter((l) => !l.includes(removed))
      .map((l) => (l.includes(`${wrongAmount}:`) ? withColumn(l, 11, '10.50') : l))
      .map((l) => (l.includes(`${wrongFee}:`) ? withColumn(withColumn(l, 17, '0.90'), 15, '18.82') : l));
    const unknown = withColumn(withColumn(withColumn(lineOf(original, kept), 2, 'NOTCOLIBRI000001'), 3, 'order-from-elsewhere'), 21, '');
    const csv = `${planted.join('\n').trimEnd()}\n${unknown}\n`;
    const imported = await importCsv(csv, 'sandbox', { 'x-operator': 'ana@ops' });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body).toMatchObject({ lines: 4, matched: 1, mismatched: 2, missing_in_colibri: 1, missing_at_processor: 1, imported_by: 'ana@ops' });

    const { unmatched } = await run(imported.body.run_id);
    expect(unmatched.totalElements).toBe(4);
    const byReason = Object.fromEntries(unmatched.content.map((l: { reason: string }) => [l.reason, l]));
    expect(byReason.AMOUNT_MISMATCH).toMatchObject({
      merchant_id: m.merchant_id, status: 'OPEN', record_type: 'Settled', resource_type: 'payment', resource_id: wrongAmount, asset: 'BRL',
      reported_amount: 10.5, expected_amount: 10, line_number: 2,
    });
    // Markup 0.90 instead of 0.12, the net consistent with it: the fees are not the simulator's price.
    expect(byReason.FEE_MISMATCH).toMatchObject({ resource_id: wrongFee, reported_fee: 1.18, expected_fee: 0.4, reported_net: 18.82 });
    expect(byReason.MISSING_IN_COLIBRI).toMatchObject({ merchant_id: null, psp_reference: 'NOTCOLIBRI000001', merchant_reference: 'order-from-elsewhere', line_number: 5 });
    expect(byReason.MISSING_AT_PROCESSOR).toMatchObject({ merchant_id: m.merchant_id, line_number: null, resource_type: 'payment', resource_id: removed, expected_amount: 30 });
    expect(byReason.MISSING_AT_PROCESSOR.expected_on > day).toBe(true);
    expect((await run(imported.body.run_id, '?reason=FEE_MISMATCH')).unmatched.totalElements).toBe(1);

    // The processor's next report lists the operation after all: the earlier line is resolved as settled late.
    const late = await importCsv(original);
    expect(late.body).toMatchObject({ lines: 4, matched: 4, missing_at_processor: 0 });
    const { unmatched: after } = await run(imported.body.run_id, '?reason=MISSING_AT_PROCESSOR');
    expect(after.content[0]).toMatchObject({ status: 'RESOLVED', resolved_by: 'colibri' });

    // Counted in /metrics, by processor and reason.
    const metrics = await service().get('/metrics', { headers: admin() });
    for (const reason of ['AMOUNT_MISMATCH', 'FEE_MISMATCH', 'MISSING_IN_COLIBRI', 'MISSING_AT_PROCESSOR']) {
      const value = new RegExp(`colibri_reconciliation_mismatches_total\\{processor="sandbox",reason="${reason}"\\} (\\d+)`).exec(metrics.text);
      expect(Number(value?.[1]), reason).toBeGreaterThanOrEqual(1);
    }
    expect(metrics.text).toMatch(/colibri_reconciliation_mismatches_open\{processor="sandbox",reason="AMOUNT_MISMATCH"\} [1-9]/);

    // Resolving: the operator names itself; an adjustment moves the merchant's balance by a journal.
    const line = byReason.AMOUNT_MISMATCH as { line_id: string };
    const resolvePath = `/admin/reconciliation/runs/${imported.body.run_id}/lines/${line.line_id}/resolve`;
    const adjustment = { merchant_id: m.merchant_id, amount: -0.5, currency: 'BRL', reason: 'the processor settled 0.50 more: returned to the payer' };
    expect((await service().post(resolvePath, { adjustment }, { headers: admin() })).body.errors[0].code).toBe('11.03.0001');
    const other = await service().merchant();
    const wrongMerchant = await service().post(resolvePath, { adjustment: { ...adjustment, merchant_id: other.merchant_id } }, { headers: { ...admin(), 'x-operator': 'ana@ops' } });
    expect([wrongMerchant.status, wrongMerchant.body.errors[0].code]).toEqual([422, '11.03.0002']);
    const resolved = await service().post(resolvePath, { adjustment }, { headers: { ...admin(), 'x-operator': 'ana@ops' } });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'RESOLVED', resolved_by: 'ana@ops', resolution_note: adjustment.reason });
    const transactions = await assertBooksAgree(service(), m);
    expect(transactions.filter((t) => t.type === 'ADJUSTMENT')).toEqual([expect.objectContaining({ source_id: resolved.body.adjustment_id, net: -0.5, amount: -0.5, fee: 0 })]);
    const kept2 = await service().ctx.db.selectFrom('balance_adjustments').selectAll().where('id', '=', resolved.body.adjustment_id).executeTakeFirstOrThrow();
    expect(kept2).toMatchObject({ merchant_id: m.merchant_id, amount_minor: -50n, operator: 'ana@ops', reason: adjustment.reason });
    const again = await service().post(resolvePath, { adjustment }, { headers: { ...admin(), 'x-operator': 'ana@ops' } });
    expect([again.status, again.body.errors[0].code]).toEqual([409, '00.10.0001']);
    // A line needing no money moved is resolved with a note; an unattributed one too.
    const note = await service().post(
      `/admin/reconciliation/runs/${imported.body.run_id}/lines/${byReason.MISSING_IN_COLIBRI.line_id}/resolve`,
      { note: 'another acquirer account' },
      { headers: { ...admin(), 'x-operator': 'bruno@ops' } },
    );
    expect(note.body).toMatchObject({ status: 'RESOLVED', resolved_by: 'bruno@ops', adjustment_id: null });
    expect((await run(imported.body.run_id, '?status=OPEN')).unmatched.totalElements).toBe(1);
  });

  it('refuses a malformed file whole, naming the line and the column, and stores nothing', async () => {
    const m = await service().merchant();
    for (let n = 0; n < 6; n += 1) await settledCardPayment(service(), m, { payment: { amount: `${11 + n}.00` } });
    const lines = (await report(m, await today(m))).trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    const before = await stored();
    const shortLine = [...lines.slice(0, 6), lines[6]?.split(',').slice(0, 20).join(',')].join('\n');
    const count = await importCsv(`${shortLine}\n`);
    expect([count.status, count.body.errors[0].code]).toEqual([400, '11.01.0002']);
    expect(count.body.errors[0].description).toMatch(/^line 7, column 21: the line has 20 columns, the header 30\. Nothing was stored\.$/);

    const badAmount = [lines[0], lines[1], withColumn(lines[2] as string, 11, '12,5O'.replace(',', ''))].join('\n');
    const amount = await importCsv(`${badAmount}\n`);
    expect([amount.status, amount.body.errors[0].code]).toEqual([400, '11.01.0003']);
    expect(amount.body.errors[0].description).toBe('line 3, column 12 (Gross Credit (GC)): "125O" is not an amount (a decimal such as 10.50, without a sign). Nothing was stored.');

    const badDate = await importCsv(`${[lines[0], withColumn(lines[1] as string, 5, '2026-02-30 10:00:00')].join('\n')}\n`);
    expect(badDate.body.errors[0]).toMatchObject({ code: '11.01.0003', description: expect.stringMatching(/^line 2, column 6 \(Creation Date\): "2026-02-30 10:00:00" is not a date of the calendar/) });
    // A zone named like what every object inherits is a zone Colibri does not know, like any other.
    const badZone = await importCsv(`${[lines[0], withColumn(lines[1] as string, 6, 'constructor')].join('\n')}\n`);
    expect([badZone.status, badZone.body.errors[0]]).toMatchObject([400, { code: '11.01.0003', description: expect.stringMatching(/^line 2, column 7 \(TimeZone\): "constructor" is not a time zone Colibri knows/) }]);
    const header = await importCsv(`${lines[0]?.replace('Psp Reference', 'PSP Ref')}\n${lines[1]}\n`);
    expect(header.body.errors[0]).toMatchObject({ code: '11.01.0001', description: expect.stringContaining('line 1: the header is not a Settlement details report\'s: it lacks "Psp Reference"') });
    const quote = await importCsv(`${lines[0]}\n${lines[1]}\n${withColumn(lines[2] as string, 3, 'ab""c')}\n`);
    expect(quote.body.errors[0]).toMatchObject({ code: '11.01.0004', description: expect.stringMatching(/^line 3, column 4: a quote inside a field/) });
    const open = await importCsv(`${lines[0]}\n${lines[1]}\n${withColumn(lines[2] as string, 3, '"abc')}\n${lines[3]}\n`);
    expect(open.body.errors[0]).toMatchObject({ code: '11.01.0004', description: 'line 3: a quoted field is never closed. Nothing was stored.' });
    const empty = await importCsv('');
    expect(empty.body.errors[0].code).toBe('11.01.0001');
    expect(await stored()).toEqual(before);

    // A well-formed file with quoted fields, CRLF line ends and a byte order mark reads as the same lines.
    const crlf = `\ufeff${lines.map((l) => l.split(',').map((v) => `"${v}"`).join(',')).join('\r\n')}\r\n`;
    expect((await importCsv(crlf)).body).toMatchObject({ lines: 6, matched: 6 });
  });

  it('takes only the admin token, and only a text/csv report', async () => {
    const m = await service().merchant();
    const csv = await report(m, await today(m));
    const anonymous = await service().request('POST', '/admin/reconciliation/imports?processor=sandbox', undefined, { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toMatchObject({ status: 401, message: 'Access Denied' });
    const merchant = await service().request('POST', '/admin/reconciliation/imports?processor=sandbox', undefined, { raw: csv, token: m.token, headers: { 'content-type': 'text/csv' } });
    expect(merchant.status).toBe(401);
    expect((await service().get('/admin/reconciliation/runs', { token: m.token })).status).toBe(401);
    expect((await service().get('/admin/reconciliation/runs', { headers: admin() })).status).toBe(200);
    const json = await service().post('/admin/reconciliation/imports?processor=adyen', { csv }, { headers: admin() });
    expect([json.status, json.body.errors[0].code]).toEqual([415, '00.00.0004']);
    const missing = await service().get('/admin/reconciliation/runs/00000000-0000-4000-8000-000000000000', { headers: admin() });
    expect([missing.status, missing.body.errors[0].code]).toEqual([404, '11.02.0001']);
  });
});
