import { randomUUID } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchantNow } from '../src/clock/merchant-clock';
import { WINDOW_ROWS } from '../src/reports/export-report';
import { customerWithCard, paymentBody, settled, waitForStatus } from './fixtures';
import { describeEachEngine, ENGINES, ERROR_TIMESTAMP, startTestService, type TestMerchant, type TestService } from './harness';
import { reportColumn as col, reportFilter as where } from './report-fixtures';

const BASE = '/reports/myreports/report';
const REPORTS_401 = { message: 'Invalid or expired token', code: 0, details: {} };

/** A strict RFC 4180 reader, so the tests check the export's quoting rather than trust it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '"' && field === '') {
      let end = i + 1;
      for (;;) {
        const quote = text.indexOf('"', end);
        if (quote === -1) throw new Error('unterminated quoted field');
        if (text[quote + 1] === '"') end = quote + 2;
        else {
          field = text.slice(i + 1, quote).replace(/""/g, '"');
          i = quote + 1;
          break;
        }
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`text after a quoted field at ${i}`);
      continue;
    }
    if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`bare CR at ${i}`);
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else if (ch === '\n') {
      throw new Error(`bare LF at ${i}`);
    } else {
      field += ch;
    }
    i += 1;
  }
  if (field !== '' || row.length > 0) throw new Error('the last line has no CRLF');
  return rows;
}

function order(position: number, fieldPosition: number, direction: 'ASC' | 'DESC' = 'ASC') {
  return { position, field_position: fieldPosition, direction };
}

function report(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Test report',
    folder: 'Tests',
    report_type: 'PAYIN',
    report_type_name: 'Pay-ins',
    enable: true,
    offset: null,
    limit: null,
    fields: [col(0, 3, 'Reference'), col(1, 1, 'Status'), col(2, 33, 'Amount')],
    filters: [],
    group_by: [''],
    order_by: [order(0, 2)],
    ...overrides,
  };
}

describeEachEngine('saved reports', (service) => {
  const create = async (m: TestMerchant, body: unknown) => {
    const response = await service().post(BASE, body, { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body as { id: number };
  };
  const exportCsv = async (m: TestMerchant, id: number, query = '') => {
    const response = await service().get(`${BASE}/${id}/export?format=csv${query}`, { token: m.token });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    return parseCsv(response.text);
  };
  const exportJson = async (m: TestMerchant, id: number) => {
    const response = await service().get(`${BASE}/${id}/export?format=json`, { token: m.token });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return response.body as Record<string, unknown>[];
  };
  /** Sends card payments and waits until each has its outcome; returns their tokens and details. */
  const pay = async (m: TestMerchant, payments: { amount: string; reference: string; card?: string }[]) => {
    const results: { token: string; details: any }[] = [];
    for (const p of payments) {
      const ids = await customerWithCard(service(), m, p.card);
      const sent = await service().post('/checkout/sendPayment', paymentBody(m, ids, { reference_id: p.reference, payment: { amount: p.amount } }), { token: m.token });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      results.push({ token: sent.body.payment_token, details: await waitForStatus(service(), m, sent.body.payment_token, settled) });
    }
    return results;
  };

  it('starts each merchant with the default reports and answers the spec page object field by field', async () => {
    const m = await service().merchant();
    const response = await service().get(BASE, { token: m.token });
    expect(response.status).toBe(200);
    const page = response.body;
    expect(Object.keys(page).sort()).toEqual(
      ['content', 'empty', 'first', 'last', 'number', 'numberOfElements', 'pageable', 'size', 'sort', 'totalElements', 'totalPages'].sort(),
    );
    const sort = { empty: true, sorted: false, unsorted: true };
    expect(page.pageable).toEqual({ sort, offset: 0, pageSize: 20, pageNumber: 0, paged: true, unpaged: false });
    expect(page.sort).toEqual(sort);
    expect(page).toMatchObject({ last: true, totalPages: 1, totalElements: 3, first: true, size: 20, number: 0, numberOfElements: 3, empty: false });

    const types = page.content.map((r: { report_type: string }) => r.report_type);
    expect(types).toContain('MERCHANT');
    expect(types).toContain('PAYIN');
    for (const r of page.content) {
      expect(Object.keys(r).sort()).toEqual(
        ['enable', 'fields', 'filters', 'folder', 'group_by', 'id', 'limit', 'name', 'offset', 'order_by', 'report_type', 'report_type_name'].sort(),
      );
      expect(r).toMatchObject({ id: expect.any(Number), enable: true, offset: null, limit: null, folder: 'Default' });
      expect(r.report_type_name).toBe(r.report_type === 'MERCHANT' ? 'Merchant transactions' : 'Pay-ins');
      for (const c of r.fields) {
        expect(Object.keys(c).sort()).toEqual(
          ['aggregation_operator', 'alias', 'arithmetic_operator', 'close_parentheses', 'field', 'id', 'open_parentheses', 'position', 'wrap'].sort(),
        );
        expect(Object.keys(c.field)).toEqual(['id']);
      }
      for (const f of r.filters) {
        expect(Object.keys(f).sort()).toEqual(['dynamic_filter', 'field', 'filter_operator', 'id', 'logical_operator', 'position', 'value'].sort());
        expect(f.dynamic_filter).toBe(true);
      }
      for (const o of r.order_by) expect(Object.keys(o).sort()).toEqual(['direction', 'field_position', 'id', 'position']);
    }
    // Each default report runs (there is nothing to show yet).
    for (const r of page.content) expect(await exportCsv(m, r.id)).toHaveLength(1);
  });

  it('pages by size and page number from 0, and keeps names that contain reportName whatever the case', async () => {
    const m = await service().merchant();
    for (const name of ['Vendas DIÁRIAS', 'vendas semanais', 'Refunds', 'Payouts by country']) await create(m, report({ name }));

    const all = await service().get(`${BASE}?size=2`, { token: m.token });
    expect(all.body).toMatchObject({ totalElements: 7, totalPages: 4, size: 2, number: 0, numberOfElements: 2, first: true, last: false, empty: false });
    expect(all.body.pageable).toMatchObject({ offset: 0, pageSize: 2, pageNumber: 0 });
    const ids: number[] = [];
    for (let pageNumber = 0; pageNumber < 4; pageNumber += 1) {
      const page = await service().get(`${BASE}?size=2&page=${pageNumber}`, { token: m.token });
      expect(page.body).toMatchObject({ number: pageNumber, first: pageNumber === 0, last: pageNumber === 3, numberOfElements: pageNumber === 3 ? 1 : 2 });
      expect(page.body.pageable).toMatchObject({ offset: pageNumber * 2, pageNumber });
      ids.push(...page.body.content.map((r: { id: number }) => r.id));
    }
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(7);

    const beyond = await service().get(`${BASE}?size=2&page=9`, { token: m.token });
    expect(beyond.body).toMatchObject({ content: [], empty: true, first: false, last: true, numberOfElements: 0, totalElements: 7 });

    const vendas = await service().get(`${BASE}?reportName=VENDAS`, { token: m.token });
    expect(vendas.body.content.map((r: { name: string }) => r.name)).toEqual(['Vendas DIÁRIAS', 'vendas semanais']);
    expect(vendas.body.totalElements).toBe(2);
    const accented = await service().get(`${BASE}?reportName=${encodeURIComponent('diárias')}`, { token: m.token });
    expect(accented.body.content.map((r: { name: string }) => r.name)).toEqual(['Vendas DIÁRIAS']);
    const percent = await service().get(`${BASE}?reportName=${encodeURIComponent('%')}`, { token: m.token });
    expect(percent.body.totalElements).toBe(0);
    const none = await service().get(`${BASE}?reportName=zzz`, { token: m.token });
    expect(none.body).toMatchObject({ content: [], totalElements: 0, totalPages: 0, first: true, last: true, empty: true });
    const empty = await service().get(`${BASE}?reportName=`, { token: m.token });
    expect(empty.body.totalElements).toBe(7);
  });

  it('refuses a page size above 100, and other bad paging values, with a code', async () => {
    const m = await service().merchant();
    const max = await service().get(`${BASE}?size=100`, { token: m.token });
    expect(max.status).toBe(200);
    for (const [query, description] of [
      ['size=101', 'size: must be <= 100.'],
      ['size=0', 'size: must be >= 1.'],
      ['page=-1', 'page: must be >= 0.'],
    ] as const) {
      const response = await service().get(`${BASE}?${query}`, { token: m.token });
      expect(response.status, query).toBe(400);
      expect(response.body.errors).toEqual([{ code: '00.01.0006', description }]);
    }
    const text = await service().get(`${BASE}?size=ten`, { token: m.token });
    expect(text.body.errors).toEqual([{ code: '00.01.0002', description: 'size: must be an integer.' }]);
  });

  it('creates (201), reads, updates and deletes (204) a report', async () => {
    const m = await service().merchant();
    const created = await service().post(BASE, report({ id: 999_999 }), { token: m.token });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe(999_999);
    expect(created.body).toMatchObject({ name: 'Test report', folder: 'Tests', report_type: 'PAYIN', report_type_name: 'Pay-ins', group_by: [''] });
    expect(created.body.fields.map((c: { id: number }) => c.id)).toEqual([1, 2, 3]);
    expect(created.body.order_by).toEqual([{ id: 1, position: 0, field_position: 2, direction: 'ASC' }]);

    const read = await service().get(`${BASE}/${created.body.id}`, { token: m.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const updated = await service().request('PUT', `${BASE}/${created.body.id}`, { ...read.body, name: 'Renamed', report_type: 'MERCHANT', limit: 10 }, { token: m.token });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toEqual({ ...read.body, name: 'Renamed', report_type: 'MERCHANT', report_type_name: 'Merchant transactions', limit: 10 });
    expect((await service().get(`${BASE}/${created.body.id}`, { token: m.token })).body).toEqual(updated.body);

    // A retried create with the same Idempotency-Key replays the first answer instead of storing a copy.
    const headers = { 'idempotency-key': `create-${randomUUID()}` };
    const once = await service().post(BASE, report({ name: 'Once' }), { token: m.token, headers });
    const replay = await service().post(BASE, report({ name: 'Once' }), { token: m.token, headers });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(once.body.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await service().get(`${BASE}?reportName=once`, { token: m.token })).body.totalElements).toBe(1);

    const deleted = await service().request('DELETE', `${BASE}/${created.body.id}`, undefined, { token: m.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await service().get(`${BASE}/${created.body.id}`, { token: m.token })).status).toBe(404);
    expect((await service().request('DELETE', `${BASE}/${created.body.id}`, undefined, { token: m.token })).status).toBe(404);
  });

  it('answers the PUT with the report as stored, filters by ascending position whatever the request order', async () => {
    const m = await service().merchant();
    const { id } = await create(m, report());
    const filters = [
      { ...where(30, 33, '>=', '1.00'), id: 7 },
      where(10, 1, '=', 'PAID'),
      where(20, 7, '=', 'CURRENT_MONTH', { dynamic_filter: true, logical_operator: 'OR' }),
    ];
    const response = await service().request('PUT', `${BASE}/${id}`, report({ id, filters, order_by: [order(5, 2, 'DESC'), order(1, 0)] }), { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.filters).toEqual([
      { field: { id: 1 }, id: 8, position: 10, filter_operator: '=', value: 'PAID', logical_operator: 'AND', dynamic_filter: false },
      { field: { id: 7 }, id: 9, position: 20, filter_operator: '=', value: 'CURRENT_MONTH', logical_operator: 'OR', dynamic_filter: true },
      { field: { id: 33 }, id: 7, position: 30, filter_operator: '>=', value: '1.00', logical_operator: 'AND', dynamic_filter: false },
    ]);
    expect(response.body.order_by.map((o: { position: number }) => o.position)).toEqual([1, 5]);
    expect((await service().get(`${BASE}/${id}`, { token: m.token })).body).toEqual(response.body);
  });

  it('answers each failing column, filter and ordering with its code and path', async () => {
    const m = await service().merchant();
    const { id } = await create(m, report());
    const put = (body: unknown) => service().request('PUT', `${BASE}/${id}`, body, { token: m.token });

    const rules = await put(
      report({
        fields: [
          col(0, 3, 'Reference'),
          col(1, 999, 'Ghost'),
          col(2, 33, 'Amount', { wrap: 'DAY' }),
          col(3, 60, 'Bank'),
          col(4, 51, 'Fees', { close_parentheses: true }),
          col(5, 1, 'Reference'),
        ],
        filters: [
          where(0, 1, '>', 'PAID'),
          where(1, 33, '>=', 'ten'),
          where(2, 3, '=', 'NOW', { dynamic_filter: true }),
          where(3, 7, '<', 'YESTERDAY', { dynamic_filter: true }),
          where(4, 23, '=', 'x'),
        ],
        group_by: ['Nobody'],
        order_by: [order(0, 42)],
      }),
    );
    expect(rules.status).toBe(400);
    expect(rules.body).toMatchObject({ status: 400, error: 'Bad Request', message: 'Validation failed', path: `${BASE}/${id}` });
    expect(rules.body.timestamp).toMatch(ERROR_TIMESTAMP);
    expect(rules.body.refresh_token).toEqual(expect.any(String));
    expect(rules.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
      ['05.01.0001', 'fields[1].field.id'],
      ['05.01.0017', 'fields[2].wrap'],
      ['05.01.0002', 'fields[3].field.id'],
      ['05.01.0010', 'fields[5].alias'],
      ['05.01.0006', 'fields[4].close_parentheses'],
      ['05.01.0011', 'group_by[0]'],
      ['05.01.0003', 'filters[0].filter_operator'],
      ['05.01.0004', 'filters[1].value'],
      ['05.01.0005', 'filters[2].dynamic_filter'],
      ['05.01.0005', 'filters[3].value'],
      ['05.01.0019', 'filters[4].field.id'],
      ['05.01.0007', 'order_by[0].field_position'],
    ]);
    for (const e of rules.body.errors) expect(e.description).toMatch(/^[\w.[\]]+: \S/);

    // Grouping rules.
    const grouping = await put(
      report({
        fields: [col(0, 1, 'Status'), col(1, 33, 'Total', { aggregation_operator: 'SUM' }), col(2, 3, 'Reference'), col(3, 20, 'Customer', { aggregation_operator: 'AVG' })],
        group_by: ['Status'],
        order_by: [],
      }),
    );
    expect(grouping.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
      ['05.01.0014', 'fields[3].aggregation_operator'],
      ['05.01.0015', 'fields[1].field.id'],
      ['05.01.0012', 'fields[2].aggregation_operator'],
    ]);

    // Arithmetic and parentheses.
    const arithmetic = await put(
      report({
        fields: [col(0, 33, 'Net', { arithmetic_operator: '-', open_parentheses: true }), col(1, 1, 'Status'), col(2, 50, 'Fees', { arithmetic_operator: '+' })],
        order_by: [],
      }),
    );
    expect(arithmetic.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]])).toEqual([
      ['05.01.0006', 'fields[0].open_parentheses'],
      ['05.01.0016', 'fields[1].field.id'],
      ['05.01.0016', 'fields[2].arithmetic_operator'],
    ]);

    // Shape errors come from the schema, with the shared field codes.
    const shape = await put(
      report({
        offset: -1,
        limit: 0,
        fields: [col(0, 3, 'Reference', { aggregation_operator: 'MEDIAN' })],
        filters: [where(0, 1, '=', 'PAID', { logical_operator: 'XOR' })],
        order_by: [{ position: 0, field_position: 0, direction: 'UP' }],
      }),
    );
    expect(shape.status).toBe(400);
    expect(shape.body.errors.map((e: { code: string; description: string }) => [e.code, e.description.split(':')[0]]).sort()).toEqual(
      [
        ['00.01.0006', 'offset'],
        ['00.01.0006', 'limit'],
        ['00.01.0005', 'fields[0].aggregation_operator'],
        ['00.01.0005', 'filters[0].logical_operator'],
        ['00.01.0005', 'order_by[0].direction'],
      ].sort(),
    );
    const noColumns = await put(report({ fields: [], order_by: [] }));
    expect(noColumns.body.errors).toEqual([{ code: '00.01.0006', description: 'fields: must have at least 1 items.' }]);
    const blank = await put(report({ name: '   ' }));
    expect(blank.body.errors).toEqual([{ code: '00.01.0007', description: 'name: must not be empty or blank.' }]);

    const mismatch = await put(report({ id: id + 1 }));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors).toEqual([{ code: '05.01.0018', description: `id: ${id + 1} differs from the report id ${id} of the path.` }]);

    // Nothing was stored by the refused requests.
    expect((await service().get(`${BASE}/${id}`, { token: m.token })).body.fields).toHaveLength(3);
    const badFormat = await service().get(`${BASE}/${id}/export?format=xlsx`, { token: m.token });
    expect(badFormat.body.errors).toEqual([{ code: '00.01.0005', description: 'format: must be one of csv, json.' }]);
  });

  it('answers 401 with the reports body on every report endpoint', async () => {
    const m = await service().merchant();
    const { id } = await create(m, report());
    const endpoints: [string, string, unknown][] = [
      ['GET', BASE, undefined],
      ['POST', BASE, report()],
      ['GET', `${BASE}/${id}`, undefined],
      ['PUT', `${BASE}/${id}`, report()],
      ['DELETE', `${BASE}/${id}`, undefined],
      ['GET', `${BASE}/${id}/export?format=csv`, undefined],
      ['GET', `${BASE}/999999/export`, undefined],
    ];
    for (const [method, path, body] of endpoints) {
      for (const headers of [{}, { 'x-auth-token': 'not-a-token' }, { 'x-auth-token': `${m.token}x` }] as Record<string, string>[]) {
        const response = await service().request(method, path, body, { headers });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body, `${method} ${path}`).toEqual(REPORTS_401);
      }
    }
    // The report was neither changed nor deleted.
    expect((await service().get(`${BASE}/${id}`, { token: m.token })).status).toBe(200);
  });

  it('answers 404 with the standard body for unknown, foreign and malformed report ids', async () => {
    const owner = await service().merchant();
    const other = await service().merchant();
    const { id } = await create(owner, report());
    for (const reportId of [String(id), '2147483647', '99999999999', 'abc', '0', '-1', '1.5']) {
      for (const [method, path, body] of [
        ['GET', `${BASE}/${reportId}`, undefined],
        ['PUT', `${BASE}/${reportId}`, report()],
        ['DELETE', `${BASE}/${reportId}`, undefined],
        ['GET', `${BASE}/${reportId}/export`, undefined],
      ] as const) {
        const response = await service().request(method, path, body, { token: other.token });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body).toMatchObject({ status: 404, error: 'Not Found', path: path.split('?')[0] });
        expect(response.body.timestamp).toMatch(ERROR_TIMESTAMP);
        expect(response.body.errors).toEqual([{ code: '00.05.0001', description: expect.stringMatching(/^reportId: no report .* of this merchant\.$/) }]);
        expect(response.body.refresh_token).toEqual(expect.any(String));
      }
    }
    // The foreign report is untouched and still the owner's alone.
    expect((await service().get(`${BASE}/${id}`, { token: owner.token })).status).toBe(200);
    const listed = await service().get(`${BASE}?size=100`, { token: other.token });
    expect(listed.body.content.map((r: { id: number }) => r.id)).not.toContain(id);
  });

  it("exports the merchant's payments as CSV and JSON, each row matching the payment the test made", async () => {
    const m = await service().merchant();
    const made = await pay(m, [
      { amount: '10.00', reference: 'exp-a' },
      { amount: '25.50', reference: 'exp-b' },
      { amount: '7.25', reference: 'exp-c', card: '4000000000000002' },
    ]);
    const { id } = await create(
      m,
      report({
        fields: [
          col(0, 2, 'Payment token'),
          col(1, 3, 'Reference'),
          col(2, 1, 'Status'),
          col(3, 30, 'Scheme'),
          col(4, 31, 'Card'),
          col(5, 32, 'Installments'),
          col(6, 20, 'Customer'),
          col(7, 21, 'E-mail'),
          col(8, 22, 'Tax id type'),
          col(9, 23, 'Tax id'),
          col(10, 33, 'Amount'),
          col(11, 34, 'Currency'),
          col(12, 50, 'Merchant fees'),
          col(13, 51, 'Customer fees'),
          col(14, 52, 'Total fees'),
          col(15, 55, 'Service fee'),
          col(16, 56, 'Taxes fee'),
          col(17, 8, 'Paid'),
          col(18, 24, 'Customer id'),
          col(19, 5, 'Type'),
        ],
        order_by: [order(0, 1)],
      }),
    );
    const csv = await exportCsv(m, id);
    expect(csv[0]).toEqual([
      'Payment token', 'Reference', 'Status', 'Scheme', 'Card', 'Installments', 'Customer', 'E-mail', 'Tax id type', 'Tax id', 'Amount', 'Currency',
      'Merchant fees', 'Customer fees', 'Total fees', 'Service fee', 'Taxes fee', 'Paid', 'Customer id', 'Type',
    ]);
    const money = (n: number) => n.toFixed(2);
    const expected = made.map(({ token, details }) => {
      const service = details.fee_info.fee.find((f: { fee_type: string }) => f.fee_type === 'SERVICE_FEE')?.value ?? 0;
      const taxes = details.fee_info.fee.find((f: { fee_type: string }) => f.fee_type === 'TAXES_FEE')?.value ?? 0;
      return [
        token,
        details.general_info.external_id,
        details.general_info.transaction_status,
        details.payment_info.card_scheme,
        details.payment_info.card_number,
        '1',
        details.customer_info.payer_name,
        details.customer_info.customer_contact,
        'CPF',
        details.customer_info.tax_id,
        money(details.payment_info.order_amount),
        'BRL',
        money(details.fee_info.merchant_amount),
        '0.00',
        money(details.fee_info.total_fee_values),
        money(service),
        money(taxes),
        details.general_info.transaction_status === 'PAID' ? expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) : '',
        details.customer_info.customer_id,
        'PAYIN',
      ];
    });
    expect(csv.slice(1)).toEqual(expected);
    expect(csv[1]?.[9]).toBe('***.982.247-**');
    expect(csv.slice(1).map((r) => r[2])).toEqual(['PAID', 'PAID', 'DECLINED']);

    const json = await exportJson(m, id);
    expect(json).toHaveLength(3);
    expect(Object.keys(json[0] as object)).toEqual(csv[0]);
    expect(json[1]).toMatchObject({ Reference: 'exp-b', Status: 'PAID', Amount: '25.50', Currency: 'BRL', Installments: 1, 'Tax id': '***.982.247-**', Type: 'PAYIN' });
    expect(json[2]).toMatchObject({ Reference: 'exp-c', Status: 'DECLINED', Paid: null });
    for (const [i, row] of json.entries()) {
      expect(Object.values(row).map((v) => (v === null ? '' : String(v)))).toEqual(csv[i + 1]);
    }
  });

  it('evaluates dynamic date filters on the merchant clock, before and after a clock advance', async () => {
    const m = await service().merchant();
    await pay(m, [{ amount: '11.00', reference: 'before-advance' }]);
    const fields = [col(0, 3, 'Reference'), col(1, 7, 'Created')];
    const lastWeek = await create(m, report({ fields, filters: [where(0, 7, '=', 'LAST_7_DAYS', { dynamic_filter: true })], order_by: [order(0, 1)] }));
    const today = await create(m, report({ fields, filters: [where(0, 7, '=', 'CURRENT_DAY', { dynamic_filter: true })], order_by: [order(0, 1)] }));
    const beforeToday = await create(m, report({ fields, filters: [where(0, 7, '<', 'CURRENT_DAY', { dynamic_filter: true })], order_by: [order(0, 1)] }));
    const untilNow = await create(m, report({ fields, filters: [where(0, 7, '<=', 'NOW', { dynamic_filter: true })], order_by: [order(0, 1)] }));
    const references = async (id: number) => (await exportCsv(m, id)).slice(1).map((r) => r[0]);

    expect(await references(lastWeek.id)).toEqual(['before-advance']);
    expect(await references(today.id)).toEqual(['before-advance']);
    expect(await references(beforeToday.id)).toEqual([]);

    const advanced = await service().post('/sandbox/clock/advance', { seconds: 8 * 86_400 }, { token: m.token });
    expect(advanced.status).toBe(200);
    expect(await references(lastWeek.id)).toEqual([]);
    expect(await references(today.id)).toEqual([]);

    await pay(m, [{ amount: '12.00', reference: 'after-advance' }]);
    expect(await references(lastWeek.id)).toEqual(['after-advance']);
    expect(await references(today.id)).toEqual(['after-advance']);
    expect(await references(beforeToday.id)).toEqual(['before-advance']);
    expect(await references(untilNow.id)).toEqual(['before-advance', 'after-advance']);

    // The payment's dates are written on the merchant clock, which the export shows in UTC.
    const clock = new Date((await service().get('/sandbox/clock', { token: m.token })).body.now);
    const created = (await exportCsv(m, untilNow.id))[2]?.[1] ?? '';
    expect(Math.abs(new Date(`${created.replace(' ', 'T')}Z`).getTime() - clock.getTime())).toBeLessThan(60_000);

    // A literal date compares whole days: the first payment's day, eight days back.
    const day = (await exportCsv(m, untilNow.id))[1]?.[1]?.slice(0, 10) ?? '';
    const onDay = await create(m, report({ fields, filters: [where(0, 7, '=', day)], order_by: [order(0, 1)] }));
    expect(await references(onDay.id)).toEqual(['before-advance']);
  });

  it('groups by day and currency with totals, averages and counts, in minor units', async () => {
    const m = await service().merchant();
    const made = await pay(m, [
      { amount: '10.00', reference: 'g1' },
      { amount: '20.00', reference: 'g2' },
      { amount: '30.50', reference: 'g3' },
      { amount: '5.00', reference: 'g4', card: '4000000000000002' },
    ]);
    const { id } = await create(
      m,
      report({
        fields: [
          col(0, 7, 'Day', { wrap: 'DAY' }),
          col(1, 1, 'Status'),
          col(2, 34, 'Currency'),
          col(3, 2, 'Payments', { aggregation_operator: 'COUNT' }),
          col(4, 33, 'Total', { aggregation_operator: 'SUM' }),
          col(5, 33, 'Average', { aggregation_operator: 'AVG' }),
          col(6, 33, 'Largest', { aggregation_operator: 'MAX' }),
          col(7, 33, 'Net', { aggregation_operator: 'SUM', arithmetic_operator: '-' }),
          col(8, 50, 'Fees'),
          col(9, 32, 'Installments', { aggregation_operator: 'AVG' }),
        ],
        group_by: ['Day', 'Status', 'Currency'],
        order_by: [order(0, 1)],
      }),
    );
    const fees = (status: string) =>
      made
        .filter((p) => p.details.general_info.transaction_status === status)
        .reduce((sum, p) => sum + Math.round(p.details.fee_info.merchant_amount * 100), 0);
    const day = made[0]?.details.transaction_history.at(-1).timestamp.slice(0, 10);
    const csv = await exportCsv(m, id);
    expect(csv).toEqual([
      ['Day', 'Status', 'Currency', 'Payments', 'Total', 'Average', 'Largest', 'Net', 'Installments'],
      [day, 'DECLINED', 'BRL', '1', '5.00', '5.00', '5.00', ((500 - fees('DECLINED')) / 100).toFixed(2), '1.00'],
      [day, 'PAID', 'BRL', '3', '60.50', '20.17', '30.50', ((6050 - fees('PAID')) / 100).toFixed(2), '1.00'],
    ]);
    const json = await exportJson(m, id);
    expect(json[1]).toEqual({ Day: day, Status: 'PAID', Currency: 'BRL', Payments: 3, Total: '60.50', Average: '20.17', Largest: '30.50', Net: ((6050 - fees('PAID')) / 100).toFixed(2), Installments: 1 });

    // A report of totals only has one row.
    const totals = await create(m, report({ fields: [col(0, 2, 'Payments', { aggregation_operator: 'COUNT' }), col(1, 8, 'Last paid', { aggregation_operator: 'MAX' })], order_by: [] }));
    const rows = await exportCsv(m, totals.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.[0]).toBe('4');
    expect(rows[1]?.[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('applies filters (AND before OR), ordering, offset and limit', async () => {
    const m = await service().merchant();
    await pay(m, [
      { amount: '10.00', reference: 'f-10' },
      { amount: '20.00', reference: 'f-20' },
      { amount: '30.00', reference: 'f-30' },
      { amount: '40.00', reference: 'f-40' },
      { amount: '15.00', reference: 'x-15', card: '4000000000000002' },
    ]);
    const fields = [col(0, 3, 'Reference'), col(1, 33, 'Amount')];
    const references = async (body: Record<string, unknown>) => (await exportCsv(m, (await create(m, report({ fields, ...body }))).id)).slice(1).map((r) => r[0]);

    expect(await references({ filters: [where(0, 33, '>=', '20'), where(1, 1, '=', 'PAID')], order_by: [order(0, 1, 'DESC')] })).toEqual(['f-40', 'f-30', 'f-20']);
    expect(await references({ filters: [where(0, 33, '>=', '20'), where(1, 1, '=', 'PAID')], order_by: [order(0, 1, 'DESC')], offset: 1, limit: 1 })).toEqual(['f-30']);
    // status = DECLINED OR amount < 15 AND reference starts with "f": (DECLINED) OR (< 15 AND f…).
    expect(
      await references({
        filters: [where(0, 1, '=', 'DECLINED', { logical_operator: 'OR' }), where(1, 33, '<', '15.00'), where(2, 3, 'STARTS_WITH', 'F')],
        order_by: [order(0, 0)],
      }),
    ).toEqual(['f-10', 'x-15']);
    expect(await references({ filters: [where(0, 3, 'CONTAINS', '-3')], order_by: [] })).toEqual(['f-30']);
    expect(await references({ filters: [where(0, 1, 'IN', 'DECLINED, ERROR')], order_by: [] })).toEqual(['x-15']);
    expect(await references({ filters: [where(0, 1, '!=', 'PAID')], order_by: [] })).toEqual(['x-15']);
    expect(await references({ filters: [where(0, 8, 'IS_NULL', '')], order_by: [] })).toEqual(['x-15']);
    expect(await references({ filters: [where(0, 8, 'IS_NOT_NULL', ''), where(1, 33, '=', '40')], order_by: [] })).toEqual(['f-40']);
    expect(await references({ filters: [where(0, 32, '>', '1')], order_by: [] })).toEqual([]);
    // Filter values are data, never SQL.
    expect(await references({ filters: [where(0, 3, '=', "f-10' or '1'='1")], order_by: [] })).toEqual([]);
  });

  it('quotes free text per RFC 4180 and keeps spreadsheet formulas from running', async () => {
    const m = await service().merchant();
    const person = await service().post('/checkout/person', { name: '=Silva, "Ana"', email: 'ana@example.com', tax_id: '529.982.247-25', tax_id_type: 'CPF' }, { token: m.token });
    const card = await service().post(
      '/checkout/card',
      { public_person_id: person.body.public_person_id, number: '4111111111111111', exp_month: '12', exp_year: '2035', cvv: '123', holder_name: 'ANA SILVA' },
      { token: m.token },
    );
    const sent = await service().post(
      '/checkout/sendPayment',
      paymentBody(m, { personId: person.body.public_person_id, cardId: card.body.public_card_id }, { reference_id: 'line\nbreak, "quoted"' }),
      { token: m.token },
    );
    await waitForStatus(service(), m, sent.body.payment_token, settled);
    const { id } = await create(m, report({ fields: [col(0, 20, 'Name, "quoted"'), col(1, 3, 'Reference'), col(2, 33, 'Amount')], order_by: [] }));
    const response = await service().get(`${BASE}/${id}/export`, { token: m.token });
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="report-${id}.csv"`);
    expect(parseCsv(response.text)).toEqual([
      ['Name, "quoted"', 'Reference', 'Amount'],
      ["'=Silva, \"Ana\"", 'line\nbreak, "quoted"', '100.00'],
    ]);
    const json = await exportJson(m, id);
    expect(json).toEqual([{ 'Name, "quoted"': '=Silva, "Ana"', Reference: 'line\nbreak, "quoted"', Amount: '100.00' }]);
  });

  it('reads payouts into MERCHANT reports only, and never another merchant’s rows or reports', async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    await pay(m, [{ amount: '50.00', reference: 'mine' }]);
    await pay(other, [{ amount: '60.00', reference: 'theirs' }]);
    const now = await merchantNow(service().ctx.db, m.merchant_id);
    await service()
      .ctx.db.insertInto('payouts')
      .values({
        tx_id: randomUUID(),
        merchant_id: m.merchant_id,
        batch_id: randomUUID(),
        batch_index: 0,
        contract_id: m.payout_contract_id,
        reference_id: 'payout-1',
        country: 'PE',
        method: 'BANK_TRANSFER',
        original_amount_minor: 12_345n,
        original_currency: 'PEN',
        amount_minor: 12_345n,
        currency: 'PEN',
        fx_rate: null,
        fx_rate_date: null,
        merchant_fees_minor: 123n,
        merchant_amount_minor: 12_468n,
        customer_fees_minor: 0n,
        customer_amount_minor: 12_345n,
        fees: JSON.stringify([]),
        bank_code: '002',
        account_type: 'CC',
        account_number: '0021234567890',
        tax_id_type: 'DNI',
        tax_id: '12345678',
        email: 'rosa@example.com',
        full_name: 'Rosa Quispe',
        notification_url: 'https://example.com/hook',
        status: 'PAID',
        created_at: now,
        updated_at: now,
        paid_at: now,
      })
      .execute();

    const merchantFields = [col(0, 5, 'Type'), col(1, 3, 'Reference'), col(2, 33, 'Amount'), col(3, 34, 'Currency'), col(4, 54, 'Net'), col(5, 12, 'Country'), col(6, 62, 'Account'), col(7, 23, 'Tax id'), col(8, 20, 'Customer'), col(9, 30, 'Scheme')];
    const all = await create(m, report({ report_type: 'MERCHANT', fields: merchantFields, order_by: [order(0, 0)] }));
    const rows = (await exportCsv(m, all.id)).slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]?.slice(0, 4)).toEqual(['PAYIN', 'mine', '50.00', 'BRL']);
    expect(rows[0]?.slice(5)).toEqual(['BR', '', '***.982.247-**', 'Maria Silva', 'VISA']);
    expect(rows[1]).toEqual(['PAYOUT', 'payout-1', '123.45', 'PEN', '-124.68', 'PE', '*********7890', '*****678', 'Rosa Quispe', '']);

    // Payout fields are refused in PAYIN reports, and PAYIN reports read payments only.
    const refused = await service().post(BASE, report({ fields: [col(0, 62, 'Account')], order_by: [] }), { token: m.token });
    expect(refused.body.errors).toEqual([{ code: '05.01.0002', description: expect.stringMatching(/^fields\[0\]\.field\.id: field 62 \(account_number\) is not available in PAYIN reports/) }]);
    const payIns = await create(m, report({ fields: [col(0, 3, 'Reference')], order_by: [] }));
    expect((await exportCsv(m, payIns.id)).slice(1)).toEqual([['mine']]);

    // The other merchant sees neither the report nor the rows, with its own reports or ours.
    expect((await service().get(`${BASE}/${all.id}/export`, { token: other.token })).status).toBe(404);
    const theirs = (await service().get(`${BASE}?size=100`, { token: other.token })).body.content;
    expect(theirs.map((r: { id: number }) => r.id)).not.toContain(all.id);
    for (const r of theirs) {
      const csv = (await exportCsv(other, r.id)).flat().join('|');
      expect(csv).not.toContain('mine');
      expect(csv).not.toContain('payout-1');
    }
    const ours = (await service().get(`${BASE}?size=100`, { token: m.token })).body.content;
    for (const r of ours) expect((await exportCsv(m, r.id)).flat().join('|')).not.toContain('theirs');
  });

  it('keeps at most 1000 reports per merchant (422 until one is deleted)', async () => {
    const m = await service().merchant();
    const db = service().ctx.db;
    const template = await db.selectFrom('reports').selectAll().where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    const copies = Array.from({ length: 997 }, (_, i) => ({
      merchant_id: m.merchant_id,
      name: `Copy ${i}`,
      name_search: `copy ${i}`,
      folder: template.folder,
      report_type: template.report_type,
      enable: true,
      row_offset: null,
      row_limit: null,
      fields: JSON.stringify(template.fields),
      filters: JSON.stringify(template.filters),
      group_by: JSON.stringify(template.group_by),
      order_by: JSON.stringify(template.order_by),
    }));
    for (let i = 0; i < copies.length; i += 250) await db.insertInto('reports').values(copies.slice(i, i + 250)).execute();
    const full = await service().post(BASE, report(), { token: m.token });
    expect(full.status).toBe(422);
    expect(full.body.errors).toEqual([{ code: '05.02.0003', description: 'The merchant has 1000 saved reports, the most it may keep; delete one first.' }]);
    expect((await service().request('DELETE', `${BASE}/${template.id}`, undefined, { token: m.token })).status).toBe(204);
    expect((await service().post(BASE, report(), { token: m.token })).status).toBe(201);
  });

  it('refuses to export a disabled report (422) and exports it again once enabled', async () => {
    const m = await service().merchant();
    const body = report({ enable: false });
    const { id } = await create(m, body);
    const refused = await service().get(`${BASE}/${id}/export`, { token: m.token });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ code: '05.02.0001', description: `reportId: report ${id} is disabled (enable: false); enable it to export it.` }]);
    await service().request('PUT', `${BASE}/${id}`, { ...body, enable: true }, { token: m.token });
    expect(await exportCsv(m, id)).toEqual([['Reference', 'Status', 'Amount']]);
    expect(await exportJson(m, id)).toEqual([]);
  });

  it('streams an export larger than one batch in order, identical in both formats', async () => {
    const m = await service().merchant();
    await customerWithCard(service(), m);
    const card = await service().ctx.db.selectFrom('cards').select(['id', 'person_id']).where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    const now = await merchantNow(service().ctx.db, m.merchant_id);
    // Rows are inserted directly: thousands of real payments would make the suite slow. Several PGlite
    // windows, the last one not full; many written chunks on either engine.
    const count = 2 * WINDOW_ROWS + 500;
    await insertPayments(service(), m, card.person_id, card.id, now, count);
    const { id } = await create(m, report({ fields: [col(0, 3, 'Reference'), col(1, 33, 'Amount'), col(2, 20, 'Customer')], order_by: [order(0, 1, 'DESC'), order(1, 0)], offset: 10, limit: count - 100 }));
    const csv = await exportCsv(m, id);
    expect(csv).toHaveLength(count - 99);
    const amounts = csv.slice(1).map((r) => Number(r[1]));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
    expect(new Set(csv.slice(1).map((r) => r[0])).size).toBe(count - 100);
    const json = await exportJson(m, id);
    expect(json.map((r) => [r.Reference, r.Amount, r.Customer])).toEqual(csv.slice(1));
    // Asked to count first, the answer says how many rows follow, and exactly those follow.
    const counted = await service().get(`${BASE}/${id}/export?format=json&count=true`, { token: m.token });
    expect(counted.status).toBe(200);
    expect(counted.headers.get('x-total-count')).toBe(String(count - 100));
    expect(counted.body).toEqual(json);
    const plain = await service().get(`${BASE}/${id}/export?format=csv`, { token: m.token });
    expect(plain.headers.get('x-total-count')).toBeNull();
    const badCount = await service().get(`${BASE}/${id}/export?format=csv&count=maybe`, { token: m.token });
    expect(badCount.status).toBe(400);
  });
});

describe.runIf(ENGINES.includes('postgres'))('report export on PostgreSQL', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('postgres');
  });
  afterAll(async () => {
    await service.close();
  });

  /** The backend running an export's query: its statement selects the row text `as line`. */
  const exportBackends = async () =>
    (
      await sql<{ wait_event: string | null }>`select wait_event from pg_stat_activity
        where datname = current_database() and query like '% as line from (%' and query not like '%pg_stat_activity%'`.execute(service.ctx.db)
    ).rows;
  const until = async (check: () => Promise<boolean>, what: string) => {
    for (const started = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() - started > 15_000) throw new Error(`timed out waiting until ${what}; export backends now: ${JSON.stringify(await exportBackends())}`);
    }
  };

  it('holds PostgreSQL back while the client does not read, and ends the query when the client leaves', async () => {
    const m = await service.merchant();
    await customerWithCard(service, m);
    const card = await service.ctx.db.selectFrom('cards').select(['id', 'person_id']).where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    await insertPayments(service, m, card.person_id, card.id, await merchantNow(service.ctx.db, m.merchant_id), 1);
    // 100,000 payments whose customer has an 800-character name, about 90 MB of CSV: more than the service,
    // the client and every socket buffer between them can hold, even where the kernel has grown the
    // receive buffers of a loopback connection towards their 32 MB ceiling (net.ipv4.tcp_rmem), as it
    // did on a loaded machine when the export carried 12 MB and the backend finished unhindered.
    await sql`update persons set name = repeat('Ana Souza ', 80) where id = ${card.person_id}`.execute(service.ctx.db);
    await sql`insert into payments (merchant_id, contract_id, reference_id, method, status, person_id, card_id, original_amount_minor,
        original_currency, amount_minor, currency, customer_fees_minor, merchant_fees_minor, fee_rules, installments, delay_capture, created_at, updated_at)
      select merchant_id, contract_id, reference_id || '-' || g, method, status, person_id, card_id, original_amount_minor + g % 1000,
        original_currency, amount_minor + g % 1000, currency, customer_fees_minor, merchant_fees_minor, fee_rules, installments, delay_capture, created_at, updated_at
      from payments cross join generate_series(1, 99999) g where merchant_id = ${m.merchant_id}`.execute(service.ctx.db);
    const fields = [col(0, 3, 'Reference'), col(1, 20, 'Customer'), col(2, 1, 'Status'), col(3, 2, 'Payment token'), col(4, 7, 'Created'), col(5, 33, 'Amount'), col(6, 34, 'Currency')];
    const created = await service.post(BASE, report({ fields, order_by: [order(0, 5, 'DESC')] }), { token: m.token });
    expect(created.status).toBe(201);
    const url = `${service.baseUrl}${BASE}/${created.body.id}/export?format=csv`;

    // A plain request on a socket of its own (no client pool keeping connections around), read once
    // and then left unread.
    const stalled = get(url, { headers: { 'x-auth-token': m.token }, agent: false });
    const response = await new Promise<IncomingMessage>((resolve, reject) => stalled.on('response', resolve).on('error', reject));
    expect(response.statusCode).toBe(200);
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    // The backpressure reaches PostgreSQL, whose backend waits to write.
    await until(async () => (await exportBackends()).some((b) => b.wait_event === 'ClientWrite'), 'the backend waits on the client');
    stalled.destroy();
    await until(async () => (await exportBackends()).length === 0, 'the backend is gone');

    // The service is unharmed: every row comes, in order, to a client that reads.
    const full = await fetch(url, { headers: { 'x-auth-token': m.token } });
    const lines = (await full.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(100_001);
    const amounts = lines.slice(1).map((line) => Number(line.split(',')[5]));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });
});

async function insertPayments(service: TestService, m: TestMerchant, personId: string, cardId: string, now: Date, count: number) {
  const rows = Array.from({ length: count }, (_, i) => ({
    merchant_id: m.merchant_id,
    contract_id: m.contract_id,
    reference_id: `bulk-${String(i).padStart(5, '0')}`,
    method: 'CREDITCARD',
    status: 'PAID',
    person_id: personId,
    card_id: cardId,
    original_amount_minor: BigInt(100 + (i % 97)),
    original_currency: 'BRL',
    amount_minor: BigInt(100 + (i % 97)),
    currency: 'BRL',
    customer_fees_minor: 0n,
    merchant_fees_minor: 0n,
    fee_rules: JSON.stringify([]),
    installments: 1,
    delay_capture: false,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 500) await service.ctx.db.insertInto('payments').values(rows.slice(i, i + 500)).execute();
}
