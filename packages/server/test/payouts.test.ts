import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { DEFAULT_FEE_PLAN, type FeeRule } from '../src/fees/fee-plan';
import { postJournals, UnbalancedJournalError } from '../src/ledger/ledger';
import { pricePayout } from '../src/payouts/price-payout';
import { PAYOUT_EXAMPLES } from '../src/payouts/validation/examples';
import { describeEachEngine, ERROR_TIMESTAMP, type TestMerchant, type TestService } from './harness';
import { PROCESS_PAYOUT_JOB } from '../src/payouts/process-payout';

type Item = Record<string, any>;

/** Every valid example of docs/payouts.md, under the merchant's own payout contract. */
function examples(merchant: TestMerchant): Item[] {
  return PAYOUT_EXAMPLES.map((example) => ({ ...structuredClone(example.item), contract_id: merchant.payout_contract_id }) as Item);
}

function example(merchant: TestMerchant, referenceId: string): Item {
  const found = examples(merchant).find((item) => item.reference_id === referenceId);
  if (!found) throw new Error(`no example ${referenceId}`);
  return found;
}

/** A CO current account that the sandbox bank rejects: account numbers ending in 0000 (docs/payouts.md). */
function rejectedItem(merchant: TestMerchant): Item {
  const item = example(merchant, 'co-cc-0001');
  item.reference_id = `reject-${randomUUID()}`;
  item.required_CO.account_number = '12345670000';
  return item;
}

async function setPayoutFees(service: TestService, merchant: TestMerchant, payouts: FeeRule[]): Promise<void> {
  const response = await service.request('PUT', `/admin/merchants/${merchant.merchant_id}/fee-plan`, { ...DEFAULT_FEE_PLAN, payouts }, {
    headers: { authorization: `Bearer ${service.ctx.adminToken}` },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

/** Rows of every table a payout batch writes to, to prove that a refused batch wrote to none. */
async function footprint(service: TestService) {
  const db = service.ctx.db;
  const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: string | number | bigint }> }) => Number((await query.executeTakeFirstOrThrow()).n);
  return {
    payouts: await count(db.selectFrom('payouts').select((eb) => eb.fn.countAll().as('n'))),
    history: await count(db.selectFrom('payout_status_history').select((eb) => eb.fn.countAll().as('n'))),
    events: await count(db.selectFrom('events').where('resource_type', '=', 'payout').select((eb) => eb.fn.countAll().as('n'))),
    ledger: await count(db.selectFrom('ledger_entries').where('kind', 'like', 'payout.%').select((eb) => eb.fn.countAll().as('n'))),
    jobs: await count(db.selectFrom('jobs').where('kind', '=', PROCESS_PAYOUT_JOB).select((eb) => eb.fn.countAll().as('n'))),
  };
}

/** Polls GET /payoutTransaction/<tx_id> until the payout leaves CREATED and PROCESSING. */
async function settledPayout(service: TestService, merchant: TestMerchant, txId: string, timeoutMs = 5000): Promise<Item> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await service.get(`/payoutTransaction/${txId}`, { token: merchant.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    if (response.body.status !== 'CREATED' && response.body.status !== 'PROCESSING') return response.body;
    if (Date.now() > deadline) throw new Error(`payout ${txId} still ${response.body.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const RESPONSE_FIELDS = [
  'amount',
  'asset',
  'banking_data',
  'customer_amount',
  'customer_fees',
  'merchant_amount',
  'merchant_fees',
  'original_amount',
  'original_asset',
  'reference_id',
  'status',
  'tx_id',
];

describeEachEngine('payouts', (service) => {
  it('answers a batch of every country and account type with every field, amounts computed exactly', async () => {
    const m = await service().merchant();
    const response = await service().post('/payoutTransaction', { payoutTransactions: examples(m) }, { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['payoutTransactionResponses', 'refresh_token']);
    expect((await service().get('/me', { token: response.body.refresh_token })).status).toBe(200);
    const items: Item[] = response.body.payoutTransactionResponses;
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(RESPONSE_FIELDS);
      expect(item.tx_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(items.map((item) => item.tx_id)).size).toBe(items.length);
    // The default plan charges the merchant 1% (10000 ppm), rounded half-up once to the minor unit:
    // 1% of 1250000.50 COP is 12500.005 → 12500.01; of 320.50 PEN 3.205 → 3.21; of 35990 CLP 359.9 → 360.
    const expected = [
      ['co-cc-0001', 250000, 'COP', 2500, '1007:CC:12345678901'],
      ['co-ca-0001', 1250000.5, 'COP', 12500.01, '1051:CA:0550123456789'],
      ['co-nc-0001', 80000, 'COP', 800, ':NC:573001234567'],
      ['co-de-0001', 45000, 'COP', 450, '1507:DE:3001234567'],
      ['pe-cc-0001', 1500.75, 'PEN', 15.01, '002:CC:1932345678012'],
      ['pe-ca-0001', 320.5, 'PEN', 3.21, '002:CA:19123456789012'],
      ['pe-cm-0001', 98000, 'PEN', 980, '003:CM:00320000300123456731'],
      ['pe-cc-0002', 2500, 'PEN', 25, '011:CC:01115200010012345664'],
      ['cl-cc-0001', 120000, 'CLP', 1200, '001:CC:0012345678'],
      ['cl-ca-0001', 35990, 'CLP', 360, '037:CA:71234567'],
      ['cl-cv-0001', 50000, 'CLP', 500, '012:CV:19000001'],
      ['cl-cv-0002', 75000, 'CLP', 750, '016:CV:700012345601'],
    ] as const;
    const merchantAmounts = [252500, 1262500.51, 80800, 45450, 1515.76, 323.71, 98980, 2525, 121200, 36350, 50500, 75750];
    expect(items.map(({ tx_id: _, ...rest }) => rest)).toEqual(
      expected.map(([reference, amount, asset, fees, banking], index) => ({
        reference_id: reference,
        amount,
        original_amount: amount,
        original_asset: asset,
        customer_fees: 0,
        customer_amount: amount,
        merchant_fees: fees,
        merchant_amount: merchantAmounts[index],
        asset,
        banking_data: banking,
        status: 'CREATED',
      })),
    );
    // The stored rows hold exact minor units beside the JSON numbers.
    const stored = await service().ctx.db.selectFrom('payouts').selectAll().where('tx_id', '=', items[1]?.tx_id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      original_amount_minor: 125000050n,
      amount_minor: 125000050n,
      merchant_fees_minor: 1250001n,
      merchant_amount_minor: 126250051n,
      customer_fees_minor: 0n,
      customer_amount_minor: 125000050n,
      fx_rate: null,
      tax_id_type: 'NIT',
      email: 'tesoreria@empresa.example.co',
      batch_index: 1,
    });
  });

  it('applies merchant and customer fees with their fixed parts, and balances each journal', async () => {
    const m = await service().merchant();
    await setPayoutFees(service(), m, [
      { type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 10_000, fixed_minor: 250 },
      { type: 'TAXES_FEE', payer: 'CUSTOMER', ppm: 4_000, fixed_minor: 0 },
    ]);
    const response = await service().post(
      '/payoutTransaction',
      { payoutTransactions: [example(m, 'pe-cc-0001'), example(m, 'cl-cc-0001')] },
      { token: m.token },
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const [pe, cl] = response.body.payoutTransactionResponses;
    // 1500.75 PEN = 150075 cents. Merchant: 150075 × 1% = 1500.75 → 1501, + 250 = 1751 (17.51).
    // Customer: 150075 × 0.4% = 600.3 → 600 (6.00), withheld: the recipient gets 150075 − 600 = 149475.
    expect(pe).toMatchObject({ amount: 1500.75, merchant_fees: 17.51, merchant_amount: 1518.26, customer_fees: 6, customer_amount: 1494.75 });
    // 120000 CLP has no minor unit below the peso: fixed_minor 250 is 250 CLP.
    expect(cl).toMatchObject({ amount: 120000, merchant_fees: 1450, merchant_amount: 121450, customer_fees: 480, customer_amount: 119520 });

    const lines = await service()
      .ctx.db.selectFrom('ledger_entries')
      .select(['account', 'amount_minor', 'currency', 'kind'])
      .where('resource_id', '=', pe.tx_id)
      .where('kind', '=', 'payout.created')
      .orderBy('id')
      .execute();
    expect(lines).toEqual([
      { account: 'merchant_payable', amount_minor: 151826n, currency: 'PEN', kind: 'payout.created' },
      { account: 'payout_clearing', amount_minor: -149475n, currency: 'PEN', kind: 'payout.created' },
      { account: 'fee_revenue', amount_minor: -2351n, currency: 'PEN', kind: 'payout.created' },
    ]);
    const stored = await service().ctx.db.selectFrom('payouts').select('fees').where('tx_id', '=', pe.tx_id).executeTakeFirstOrThrow();
    expect(stored.fees).toEqual([
      { type: 'SERVICE_FEE', payer: 'MERCHANT', amount_minor: '1751' },
      { type: 'TAXES_FEE', payer: 'CUSTOMER', amount_minor: '600' },
    ]);
    // The processor is asked to send what the recipient is to receive.
    expect((await settledPayout(service(), m, pe.tx_id)).status).toBe('PAID');
    const paid = await service()
      .ctx.db.selectFrom('ledger_entries')
      .select(['account', 'amount_minor'])
      .where('resource_id', '=', pe.tx_id)
      .where('kind', '=', 'payout.paid')
      .orderBy('id')
      .execute();
    expect(paid).toEqual([
      { account: 'payout_clearing', amount_minor: 149475n },
      { account: 'processor_receivable', amount_minor: -149475n },
    ]);
  });

  it('converts at the stored rate and prices fees on the converted amount (FX)', async () => {
    const rules: FeeRule[] = [
      { type: 'SERVICE_FEE', payer: 'MERCHANT', ppm: 10_000, fixed_minor: 250 },
      { type: 'TAXES_FEE', payer: 'CUSTOMER', ppm: 4_000, fixed_minor: 0 },
    ];
    const result = await pricePayout(service().ctx.db, { originalMinor: 10_000n, originalCurrency: 'USD', paymentCurrency: 'COP' }, rules);
    // Seeded rates: USD 5.3412 BRL, COP 0.00137 BRL. 100.00 USD = 100 × 5.3412 / 0.00137 COP
    // = 389868.6131… → 389868.61 COP (38986861 cents); the rate is 5.3412 / 0.00137 = 3898.68613138686…
    // Merchant: 38986861 × 1% = 389868.61 → 389869, + 250 = 390119. Customer: × 0.4% = 155947.444 → 155947.
    expect(result).toEqual({
      ok: true,
      price: {
        originalMinor: 10_000n,
        originalCurrency: 'USD',
        amountMinor: 38_986_861n,
        currency: 'COP',
        fxRate: '3898.6861313869',
        fxRateDate: '2026-11-20',
        fees: [
          { type: 'SERVICE_FEE', payer: 'MERCHANT', amountMinor: 390_119n },
          { type: 'TAXES_FEE', payer: 'CUSTOMER', amountMinor: 155_947n },
        ],
        merchantFeesMinor: 390_119n,
        merchantAmountMinor: 38_986_861n + 390_119n,
        customerFeesMinor: 155_947n,
        customerAmountMinor: 38_986_861n - 155_947n,
      },
    });
    await service().ctx.db.deleteFrom('fx_rates').where('currency', '=', 'EUR').execute();
    const missing = await pricePayout(service().ctx.db, { originalMinor: 100n, originalCurrency: 'EUR', paymentCurrency: 'PEN' }, rules);
    expect(missing).toMatchObject({ ok: false, key: 'PAYOUT_FX_RATE_MISSING', field: 'original_currency' });
  });

  it('takes a payout in another original currency through the API and pays it in sandbox, the rate recorded as a decimal string', async () => {
    const m = await service().merchant();
    const item = { ...example(m, 'pe-cc-0001'), original_amount: '250.00', original_currency: 'USD' };
    const response = await service().post('/payoutTransaction', { payoutTransactions: [item] }, { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    // 250.00 USD at 5.3412 / 1.4210 = 3.758761435608726… PEN per USD: 939.6903589 → 939.69 PEN.
    const created = response.body.payoutTransactionResponses[0];
    expect(created).toMatchObject({ original_amount: 250, original_asset: 'USD', amount: 939.69, asset: 'PEN', fx_rate: '3.7587614356', fx_rate_date: '2026-11-20', status: 'CREATED' });
    const settled = await settledPayout(service(), m, created.tx_id);
    expect(settled).toMatchObject({ status: 'PAID', amount: 939.69, asset: 'PEN', original_asset: 'USD', fx_rate: '3.7587614356' });
    const row = await service().ctx.db.selectFrom('payouts').select(['fx_rate', 'amount_minor', 'original_amount_minor']).where('tx_id', '=', created.tx_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ fx_rate: '3.7587614356', amount_minor: 93_969n, original_amount_minor: 25_000n });
    // An original currency Colibri has no rate for is refused before anything is stored.
    const refused = await service().post('/payoutTransaction', { payoutTransactions: [{ ...item, original_currency: 'XAU' }] }, { token: m.token });
    expect(refused.body.errors).toEqual([{ code: '02.01.0006', description: expect.stringContaining('original_currency') }]);
  });

  it('refuses a batch whose customer fees would take the whole payout', async () => {
    const m = await service().merchant();
    await setPayoutFees(service(), m, [{ type: 'SERVICE_FEE', payer: 'CUSTOMER', ppm: 0, fixed_minor: 1_000_000 }]);
    const before = await footprint(service());
    const item = example(m, 'cl-ca-0001');
    const response = await service().post('/payoutTransaction', { payoutTransactions: [example(m, 'co-cc-0001'), item] }, { token: m.token });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        code: '02.02.0003',
        description:
          'payoutTransactions[1].original_amount: must be more than the customer fees of 1000000 CLP, which are withheld from what the recipient receives.',
      },
    ]);
    expect(await footprint(service())).toEqual(before);
  });

  it('takes every payout to PAID, and an account ending in 0000 to REJECTED, with history, events and ledger', async () => {
    const m = await service().merchant();
    const response = await service().post('/payoutTransaction', { payoutTransactions: [...examples(m), rejectedItem(m)] }, { token: m.token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const items: Item[] = response.body.payoutTransactionResponses;
    const settled = await Promise.all(items.map((item) => settledPayout(service(), m, item.tx_id)));
    expect(settled.slice(0, -1).map((item) => item.status)).toEqual(Array(items.length - 1).fill('PAID'));
    const rejected = settled.at(-1) as Item;
    expect(rejected).toMatchObject({ status: 'REJECTED', error_code: 'ACCOUNT_CLOSED', error_description: expect.any(String) });
    expect(Object.keys(settled[0] as Item).sort()).toEqual([...RESPONSE_FIELDS, 'refresh_token'].sort());

    const db = service().ctx.db;
    for (const [item, final] of [
      [items[0], 'PAID'],
      [items.at(-1), 'REJECTED'],
    ] as const) {
      const history = await db
        .selectFrom('payout_status_history')
        .select(['status', 'previous_status', 'error_code'])
        .where('tx_id', '=', item?.tx_id)
        .orderBy('id')
        .execute();
      expect(history).toEqual([
        { status: 'CREATED', previous_status: null, error_code: null },
        { status: 'PROCESSING', previous_status: 'CREATED', error_code: null },
        { status: final, previous_status: 'PROCESSING', error_code: final === 'REJECTED' ? 'ACCOUNT_CLOSED' : null },
      ]);
      const events = await db
        .selectFrom('events')
        .select(['type', 'data', 'notification_urls', 'merchant_id'])
        .where('resource_type', '=', 'payout')
        .where('resource_id', '=', item?.tx_id)
        .orderBy('created_at')
        .execute();
      expect(events.map((event) => (event.data as Item).status)).toEqual(['CREATED', 'PROCESSING', final]);
      for (const event of events) {
        expect(event).toMatchObject({
          type: 'payout.status_changed',
          merchant_id: m.merchant_id,
          notification_urls: ['https://merchant.example.com/payouts/callback'],
          data: { tx_id: item?.tx_id, reference_id: item?.reference_id },
        });
      }
      const row = await db.selectFrom('payouts').selectAll().where('tx_id', '=', item?.tx_id).executeTakeFirstOrThrow();
      expect(row.processing_at).toBeInstanceOf(Date);
      expect(final === 'PAID' ? row.paid_at : row.rejected_at).toBeInstanceOf(Date);
      expect(final === 'PAID' ? row.processor_id : row.error_code).toEqual(expect.any(String));
    }
    // A rejected payout costs the merchant nothing: its journals cancel out on every account.
    const rejectedLines = await db
      .selectFrom('ledger_entries')
      .select(['account', (eb) => eb.fn.sum<string | bigint>('amount_minor').as('total')])
      .where('resource_id', '=', rejected.tx_id)
      .groupBy('account')
      .execute();
    expect(rejectedLines.map((line) => BigInt(line.total))).toEqual([0n, 0n, 0n]);
  });

  it('stores nothing when one item is bad, and names each failing item and field', async () => {
    const m = await service().merchant();
    const batch = examples(m);
    (batch[4] as Item).required_PE.account_number = '193234567801'; // bank 002 CC needs 13 digits
    delete (batch[9] as Item).reference_id;
    const before = await footprint(service());
    const response = await service().post('/payoutTransaction', { payoutTransactions: batch }, { token: m.token });
    expect(response.status).toBe(400);
    expect(response.body.timestamp).toMatch(ERROR_TIMESTAMP);
    expect(response.body).toMatchObject({ status: 400, error: 'Bad Request', path: '/payoutTransaction' });
    expect(response.body.errors).toEqual([
      {
        code: '02.01.0022',
        description: 'payoutTransactions[4].required_PE.account_number: must be exactly 13 digits for bank_code 002 with account_type CC.',
      },
      { code: '02.01.0003', description: 'payoutTransactions[9].reference_id: is required.' },
    ]);
    expect(typeof response.body.refresh_token).toBe('string');
    expect(await footprint(service())).toEqual(before);
  });

  it("refuses a Peruvian CCI whose bank prefix is not the item's bank_code, as a field error, storing nothing", async () => {
    const m = await service().merchant();
    const batch = examples(m);
    const index = batch.findIndex((item) => item.reference_id === 'pe-cm-0001');
    (batch[index] as Item).required_PE.bank_code = '011'; // the CCI 00320000300123456731 is of bank 003
    const before = await footprint(service());
    const response = await service().post('/payoutTransaction', { payoutTransactions: batch }, { token: m.token });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        code: '02.01.0047',
        description: `payoutTransactions[${index}].required_PE.account_number: is an interbank account code (CCI) of bank 003, not of bank_code 011: its first three digits must be the bank code.`,
      },
    ]);
    expect(await footprint(service())).toEqual(before);
  });

  it('refuses an empty batch, a batch above 1000 items and a body without the array', async () => {
    const m = await service().merchant();
    const empty = await service().post('/payoutTransaction', { payoutTransactions: [] }, { token: m.token });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ code: '02.01.0001', description: 'payoutTransactions: must contain at least one payout item.' }]);

    const before = await footprint(service());
    const item = example(m, 'co-nc-0001');
    const tooMany = await service().post('/payoutTransaction', { payoutTransactions: Array.from({ length: 1001 }, () => item) }, { token: m.token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([{ code: '02.02.0001', description: 'payoutTransactions: must have at most 1000 payout items.' }]);
    expect(await footprint(service())).toEqual(before);

    const missing = await service().post('/payoutTransaction', { payouts: [item] }, { token: m.token });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ code: '00.01.0001', description: 'payoutTransactions: is required.' }]);
  });

  it("refuses another merchant's contract_id as a per-item error, together with other problems", async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    const batch = [example(m, 'co-cc-0001'), { ...example(m, 'pe-cc-0002'), contract_id: other.payout_contract_id }, example(m, 'cl-cc-0001')];
    (batch[2] as Item).payout_method = 'CASH';
    const before = await footprint(service());
    const response = await service().post('/payoutTransaction', { payoutTransactions: batch }, { token: m.token });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { code: '02.02.0002', description: 'payoutTransactions[1].contract_id: is not the payout contract of this merchant (its payout_contract_id).' },
      { code: '02.01.0012', description: 'payoutTransactions[2].payout_method: must be one of BANK_TRANSFER; got "CASH".' },
    ]);
    expect(await footprint(service())).toEqual(before);
    // The merchant's payment contract is not its payout contract either.
    const payments = await service().post('/payoutTransaction', { payoutTransactions: [{ ...example(m, 'co-cc-0001'), contract_id: m.contract_id }] }, { token: m.token });
    expect(payments.body.errors?.[0]?.code).toBe('02.02.0002');
  });

  it("answers 404 for another merchant's payout and for unknown ids", async () => {
    const owner = await service().merchant();
    const stranger = await service().merchant();
    const created = await service().post('/payoutTransaction', { payoutTransactions: [example(owner, 'cl-cv-0001')] }, { token: owner.token });
    const txId = created.body.payoutTransactionResponses[0].tx_id;
    expect((await service().get(`/payoutTransaction/${txId}`, { token: owner.token })).status).toBe(200);
    for (const path of [`/payoutTransaction/${txId}`, `/payoutTransaction/${randomUUID()}`, '/payoutTransaction/not-a-uuid']) {
      const response = await service().get(path, { token: stranger.token });
      expect(response.status).toBe(404);
      expect(response.body.errors).toEqual([{ code: '00.05.0001', description: 'tx_id: no payout with this tx_id.' }]);
    }
    expect((await service().get(`/payoutTransaction/${txId}`)).status).toBe(401);
  });

  it('replays a batch for the same Idempotency-Key without creating a second set of payouts', async () => {
    const m = await service().merchant();
    const key = randomUUID();
    const body = { payoutTransactions: [example(m, 'co-de-0001'), example(m, 'pe-ca-0001')] };
    const first = await service().post('/payoutTransaction', body, { token: m.token, headers: { 'idempotency-key': key } });
    const before = await footprint(service());
    const second = await service().post('/payoutTransaction', body, { token: m.token, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    // The replay is the first answer, but for its refresh_token, which is minted anew (docs/conventions.md).
    const { refresh_token: firstToken, ...firstRest } = first.body;
    const { refresh_token: secondToken, ...secondRest } = second.body;
    expect(secondRest).toEqual(firstRest);
    expect(typeof firstToken === 'string' && typeof secondToken === 'string').toBe(true);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const after = await footprint(service());
    expect(after.payouts).toBe(before.payouts);
    const mine = await service().ctx.db.selectFrom('payouts').select('tx_id').where('merchant_id', '=', m.merchant_id).execute();
    expect(mine).toHaveLength(2);
  });

  it('settles from the processor after a timeout and retries while it is unavailable, sending each payout once', async () => {
    for (const fault of ['TIMEOUT', 'UNAVAILABLE'] as const) {
      const m = await service().merchant();
      const set = await service().post('/sandbox/processor/faults', { operation: 'payout', fault, times: 1 }, { token: m.token });
      expect(set.status).toBe(200);
      const created = await service().post('/payoutTransaction', { payoutTransactions: [example(m, 'pe-cm-0001')] }, { token: m.token });
      const txId = created.body.payoutTransactionResponses[0].tx_id;
      expect((await settledPayout(service(), m, txId, 8000)).status).toBe('PAID');
      const operations = await service().ctx.db.selectFrom('sandbox_operations').select('reference').where('merchant_id', '=', m.merchant_id).execute();
      expect(operations).toEqual([{ reference: `${txId}:payout` }]);
      const history = await service().ctx.db.selectFrom('payout_status_history').select('status').where('tx_id', '=', txId).orderBy('id').execute();
      expect(history.map((h) => h.status)).toEqual(['CREATED', 'PROCESSING', 'PAID']);
    }
  });

  it('writes no journal of a set when one of them does not balance', async () => {
    const m = await service().merchant();
    const journal = (resourceId: string, clearing: bigint) => ({
      merchantId: m.merchant_id,
      kind: 'payout.created',
      currency: 'PEN',
      resourceId,
      lines: [
        { account: 'merchant_payable' as const, amountMinor: 100n },
        { account: 'payout_clearing' as const, amountMinor: clearing },
      ],
    });
    const balanced = randomUUID();
    const unbalanced = randomUUID();
    await expect(postJournals(service().ctx.db, [journal(balanced, -100n), journal(unbalanced, -99n)])).rejects.toBeInstanceOf(UnbalancedJournalError);
    const written = await service().ctx.db.selectFrom('ledger_entries').select('id').where('resource_id', 'in', [balanced, unbalanced]).execute();
    expect(written).toEqual([]);
  });

  // Runs last: it checks every journal the tests above wrote.
  it('keeps every ledger journal balanced', async () => {
    const unbalanced = await sql<{ journal_id: string }>`
      select journal_id from ledger_entries group by journal_id, currency having sum(amount_minor) <> 0`.execute(service().ctx.db);
    expect(unbalanced.rows).toEqual([]);
    const journals = await sql<{ n: string | number | bigint }>`
      select count(distinct journal_id) as n from ledger_entries where kind like 'payout.%'`.execute(service().ctx.db);
    expect(Number(journals.rows[0]?.n)).toBeGreaterThan(20);
  });
});
