import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { merchantNow, advanceMerchantClock } from '../src/clock/merchant-clock';
import { balanceDay, balances, postJournal } from '../src/ledger/ledger';
import { addDays, dayOfWeek, isBusinessDay, nextBusinessDay } from '../src/rails/calendar';
import { NO_SETTLEMENT_PAYER, PAY_SETTLEMENT_JOB, paySettlement } from '../src/settlements/pay-settlement';
import { settleCurrency, sweepSettlements } from '../src/settlements/sweep-settlements';
import { assertBooksAgree } from './balance-fixtures';
import { settledCardPayment } from './fixtures';
import { describeEachEngine, type TestMerchant, type TestService } from './harness';
import { reportColumn } from './report-fixtures';

/**
 * Settlements to merchants (docs/balance-and-settlements.md, "Settlements"): the daily sweep on the merchant's
 * clock, the money it moves, the sandbox bank's answers, the merchant's pause and the operator's hold.
 *
 * Money becomes available on a day of its method's schedule; the tests move the merchant's clock at least 35
 * days ahead before they expect a balance to be available, which covers every delay of the schedule (card
 * receivables are D+30).
 */

const PIX_KEY = 'financeiro@loja.com.br';
/** A valid CLABE (BBVA México, bank 002). */
const CLABE = '002010077777777771';
const admin = (service: TestService) => ({ authorization: `Bearer ${service.ctx.adminToken}` });

async function clockOf(service: TestService, m: TestMerchant): Promise<Date> {
  return merchantNow(service.ctx.db, m.merchant_id);
}

/** The merchant's local day in Brasília. */
async function todayOf(service: TestService, m: TestMerchant): Promise<string> {
  return balanceDay(await clockOf(service, m), 'BRL');
}

/** The first day on or after `from` that `accept` accepts. */
function firstDay(from: string, accept: (day: string) => boolean): string {
  let day = from;
  while (!accept(day)) day = addDays(day, 1);
  return day;
}

/** Moves the merchant's clock, through the sandbox control, to noon in Brasília on `day` (the sweep runs with it). */
async function clockTo(service: TestService, m: TestMerchant, day: string): Promise<void> {
  const seconds = Math.ceil((new Date(`${day}T15:00:00Z`).getTime() - (await clockOf(service, m)).getTime()) / 1000);
  expect(seconds, `${day} is ahead of the merchant's clock`).toBeGreaterThan(0);
  const moved = await service.post('/sandbox/clock/advance', { seconds }, { token: m.token });
  expect(moved.status).toBe(200);
}

/** A business day at least 35 days ahead of the merchant's clock: whatever it was paid is available then. */
async function businessDayAhead(service: TestService, m: TestMerchant): Promise<string> {
  return firstDay(addDays(await todayOf(service, m), 35), (day) => isBusinessDay(day));
}

async function putSettings(service: TestService, m: TestMerchant, body: unknown) {
  return service.request('PUT', '/settlements/settings', body, { token: m.token });
}

async function settlementsOf(service: TestService, m: TestMerchant) {
  const listed = await service.get('/settlements?size=100', { token: m.token });
  expect(listed.status).toBe(200);
  return listed.body.content as { settlement_id: string; amount: number; asset: string; status: string; arrival_date: string; settlement_date: string; failure_code: string | null }[];
}

async function available(service: TestService, m: TestMerchant, asset = 'BRL'): Promise<number> {
  const [balance] = (await assertBooksAgree(service, m)).filter((b) => b.asset === asset);
  return balance?.available ?? 0;
}

/** All the merchant has in a currency (available, pending and reserved): what is available once its days have come. */
async function owedTo(service: TestService, m: TestMerchant, asset = 'BRL'): Promise<number> {
  const [balance] = (await assertBooksAgree(service, m)).filter((b) => b.asset === asset);
  return balance ? Math.round((balance.available + balance.pending + balance.reserved) * 100) / 100 : 0;
}

async function waitForSettlement(service: TestService, m: TestMerchant, id: string, until: (status: string) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await service.get(`/settlements/${id}`, { token: m.token });
    expect(read.status).toBe(200);
    if (until(read.body.status)) return read.body;
    if (Date.now() > deadline) throw new Error(`settlement ${id} still ${read.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const final = (status: string) => status === 'PAID' || status === 'FAILED';

/** Credits a merchant's balance in a currency by an operator adjustment journal, available today on its clock. */
async function adjust(service: TestService, m: TestMerchant, currency: string, amountMinor: bigint): Promise<void> {
  const now = await clockOf(service, m);
  await postJournal(service.ctx.db, {
    merchantId: m.merchant_id,
    kind: 'adjustment',
    currency,
    resourceId: `test-${randomBytes(4).toString('hex')}`,
    at: now,
    balance: { type: 'ADJUSTMENT', sourceId: 'test' },
    lines: [
      { account: 'merchant_payable', amountMinor: -amountMinor, availableOn: balanceDay(now, currency) },
      { account: 'adjustments', amountMinor },
    ],
  });
}

describeEachEngine('settlements', (service) => {
  it('settles the available balance once, however many sweeps race, and the sandbox bank pays it', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    const set = await putSettings(service(), m, { paused: true, currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ paused: true, held: false, currencies: [{ asset: 'BRL', minimum: 50, destination: { kind: 'PIX_KEY', pix_key: PIX_KEY, pix_key_type: 'EMAIL' } }] });

    const day = await businessDayAhead(service(), m);
    await clockTo(service(), m, day);
    const before = await available(service(), m);
    expect(before).toBeGreaterThanOrEqual(50);
    expect(await settlementsOf(service(), m)).toEqual([]);

    expect((await putSettings(service(), m, { paused: false })).body.paused).toBe(false);
    // Sweeps in parallel (and the background's own) race for the same money: one settlement.
    const made = await Promise.all([sweepSettlements(service().ctx), sweepSettlements(service().ctx), settleCurrency(service().ctx.db, m.merchant_id, 'BRL')]);
    expect(made[0] + made[1] + (made[2] === undefined ? 0 : 1)).toBeLessThanOrEqual(1);
    await sweepSettlements(service().ctx);
    const [settlement, ...others] = await settlementsOf(service(), m);
    expect(others).toEqual([]);
    expect(settlement).toMatchObject({ amount: before, asset: 'BRL', settlement_date: day, destination: { kind: 'PIX_KEY', pix_key: PIX_KEY } });

    const paid = await waitForSettlement(service(), m, settlement!.settlement_id, final);
    expect(paid).toMatchObject({ status: 'PAID', failure_code: null, failed_at: null, arrival_date: nextBusinessDay(addDays(day, 1)) });
    expect(paid.in_transit_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(paid.paid_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    // The money left: nothing available, the books agree, one SETTLEMENT transaction took it, the clearing account is settled.
    expect(await available(service(), m)).toBe(0);
    const moved = (await service().get('/balance/transactions?type=SETTLEMENT', { token: m.token })).body.content;
    expect(moved).toEqual([expect.objectContaining({ type: 'SETTLEMENT', source_id: settlement!.settlement_id, net: -before, fee: 0, available_on: day })]);
    const ledger = await balances(service().ctx.db, m.merchant_id, 'BRL');
    expect(ledger.settlement_clearing ?? 0n).toBe(0n);
    const paidJournal = await service().ctx.db.selectFrom('ledger_entries').select(['account', 'amount_minor']).where('resource_id', '=', settlement!.settlement_id).where('kind', '=', 'settlement.paid').orderBy('account').execute();
    expect(paidJournal).toEqual([
      { account: 'processor_receivable', amount_minor: -BigInt(Math.round(before * 100)) },
      { account: 'settlement_clearing', amount_minor: BigInt(Math.round(before * 100)) },
    ]);
    expect((await service().get(`/settlements?status=PAID&from=${day}&to=${day}`, { token: m.token })).body.totalElements).toBe(1);
    expect((await service().get(`/settlements?status=FAILED`, { token: m.token })).body.totalElements).toBe(0);
    expect((await service().get(`/settlements?from=${addDays(day, 1)}`, { token: m.token })).body.totalElements).toBe(0);

    // A MERCHANT report lists the settlement beside the payment it came from (the merchant's bank statement side).
    const created = await service().post(
      '/reports/myreports/report',
      {
        name: 'Settlements', folder: 'Finance', report_type: 'MERCHANT', report_type_name: 'Merchant transactions', enable: true, offset: null, limit: null,
        fields: [reportColumn(0, 5, 'type'), reportColumn(1, 2, 'id'), reportColumn(2, 33, 'amount'), reportColumn(3, 81, 'net'), reportColumn(4, 82, 'arrival'), reportColumn(5, 80, 'available'), reportColumn(6, 1, 'status')],
        filters: [], group_by: [''], order_by: [{ position: 0, field_position: 0, direction: 'ASC' }],
      },
      { token: m.token },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const rows = (await service().get(`/reports/myreports/report/${created.body.id}/export?format=json`, { token: m.token })).body as Record<string, unknown>[];
    const payin = rows.find((r) => r.type === 'PAYIN');
    const settled = rows.find((r) => r.type === 'SETTLEMENT');
    expect(payin).toMatchObject({ amount: '100.00', net: '96.24', arrival: null });
    expect(String(payin?.available)).toMatch(/^\d{4}-\d{2}-\d{2}/);
    expect(settled).toMatchObject({ id: settlement!.settlement_id, status: 'PAID', available: null });
    expect(Number(settled?.amount)).toBe(before);
    expect(Number(settled?.net)).toBe(-before);
    expect(String(settled?.arrival)).toContain(nextBusinessDay(addDays(day, 1)));
  });

  it('fails a settlement the bank refuses, gives its money back to the available balance, and tries again the next business day', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    // The sandbox bank refuses an account number ending in 0000 (a closed account).
    const account = { type: 'CHECKING', bank_number: '341', agency_number: '1234', account_number: '12340000', account_check_digit: '5' };
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', minimum: 50, destination: account }] })).status).toBe(200);
    const day = await businessDayAhead(service(), m);
    // The sweep that runs with the clock's move settles it all.
    const before = await owedTo(service(), m);
    await clockTo(service(), m, day);
    await sweepSettlements(service().ctx);
    const [settlement] = await settlementsOf(service(), m);
    const failed = await waitForSettlement(service(), m, settlement!.settlement_id, final);
    expect(failed).toMatchObject({ status: 'FAILED', failure_code: 'ACCOUNT_CLOSED', paid_at: null, destination: { kind: 'BANK_ACCOUNT', account_number: '12340000', agency_check_digit: null } });
    expect(failed.failed_at).not.toBeNull();

    // Its money is available again, through a second SETTLEMENT transaction, and the clearing account is settled.
    expect(await available(service(), m)).toBe(before);
    const moved = (await service().get('/balance/transactions?type=SETTLEMENT', { token: m.token })).body.content.map((t: { net: number }) => t.net);
    expect(moved.sort()).toEqual([-before, before].sort());
    expect((await balances(service().ctx.db, m.merchant_id, 'BRL')).settlement_clearing ?? 0n).toBe(0n);

    // Not again today; on the next business day, again (and, to the same closed account, it fails again).
    await sweepSettlements(service().ctx);
    expect(await settlementsOf(service(), m)).toHaveLength(1);
    await clockTo(service(), m, nextBusinessDay(addDays(day, 1)));
    await sweepSettlements(service().ctx);
    const [second] = await settlementsOf(service(), m);
    expect(second!.settlement_id).not.toBe(settlement!.settlement_id);
    expect(second).toMatchObject({ amount: before, settlement_date: nextBusinessDay(addDays(day, 1)) });
    expect((await waitForSettlement(service(), m, second!.settlement_id, final)).status).toBe('FAILED');
    expect(await available(service(), m)).toBe(before);
  });

  it('settles nothing on weekends and bank holidays, then settles on the next business day', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    const saturday = firstDay(addDays(await todayOf(service(), m), 35), (day) => dayOfWeek(day) === 6);
    await clockTo(service(), m, saturday);
    await sweepSettlements(service().ctx);
    await clockTo(service(), m, addDays(saturday, 1));
    await sweepSettlements(service().ctx);
    const holiday = firstDay(addDays(saturday, 2), (day) => !isBusinessDay(day) && dayOfWeek(day) !== 0 && dayOfWeek(day) !== 6);
    await clockTo(service(), m, holiday);
    await sweepSettlements(service().ctx);
    expect(await settlementsOf(service(), m)).toEqual([]);
    expect(await available(service(), m)).toBeGreaterThanOrEqual(50);

    const next = nextBusinessDay(addDays(holiday, 1));
    await clockTo(service(), m, next);
    const [settlement] = await settlementsOf(service(), m);
    expect(settlement).toMatchObject({ settlement_date: next });
    expect((await waitForSettlement(service(), m, settlement!.settlement_id, final)).status).toBe('PAID');
  });

  it('settles nothing for a paused merchant, a held one or a balance below the minimum; a release resumes', async () => {
    const paused = await service().merchant();
    const held = await service().merchant();
    const below = await service().merchant();
    for (const m of [paused, held, below]) await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    expect((await putSettings(service(), paused, { paused: true, currencies: [{ asset: 'BRL', minimum: 10, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    expect((await putSettings(service(), held, { currencies: [{ asset: 'BRL', minimum: 10, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    // The default minimum, 100.00, is above what a 100.00 payment leaves after its fees.
    const defaults = await putSettings(service(), below, { currencies: [{ asset: 'BRL', destination: { pix_key: PIX_KEY } }] });
    expect(defaults.body.currencies).toEqual([expect.objectContaining({ asset: 'BRL', minimum: 100 })]);

    expect((await service().post(`/admin/merchants/${held.merchant_id}/settlements/hold`, { reason: 'KYC review' })).status).toBe(401);
    expect((await service().post(`/admin/merchants/${held.merchant_id}/settlements/hold`, { reason: 'KYC review' }, { token: held.token })).status).toBe(401);
    const unknown = await service().post(`/admin/merchants/00000000-0000-4000-8000-000000000000/settlements/hold`, { reason: 'KYC review' }, { headers: admin(service()) });
    expect(unknown.status).toBe(404);
    const hold = await service().post(`/admin/merchants/${held.merchant_id}/settlements/hold`, { reason: 'KYC review' }, { headers: admin(service()) });
    expect(hold.status, JSON.stringify(hold.body)).toBe(200);
    expect(hold.body).toMatchObject({ merchant_id: held.merchant_id, held: true, held_reason: 'KYC review', paused: false, failed_settlement_ids: [] });
    // The merchant sees the hold, not the operator's reason.
    const seen = await service().get('/settlements/settings', { token: held.token });
    expect(seen.body).toMatchObject({ held: true, paused: false });
    expect(JSON.stringify(seen.body)).not.toContain('KYC');

    for (const m of [paused, held, below]) {
      await clockTo(service(), m, await businessDayAhead(service(), m));
      await sweepSettlements(service().ctx);
      expect(await settlementsOf(service(), m)).toEqual([]);
      expect(await available(service(), m)).toBeGreaterThan(90);
    }

    const released = await service().post(`/admin/merchants/${held.merchant_id}/settlements/release`, {}, { headers: admin(service()) });
    expect(released.body).toMatchObject({ held: false, held_reason: null, held_at: null });
    await sweepSettlements(service().ctx);
    const [settlement] = await settlementsOf(service(), held);
    expect((await waitForSettlement(service(), held, settlement!.settlement_id, final)).status).toBe('PAID');
    expect(await available(service(), held)).toBe(0);
  });

  it('settles each currency to its own destination', async () => {
    const m = await service().merchant();
    await settledCardPayment(service(), m, { payment: { amount: '100.00' } });
    const set = await putSettings(service(), m, {
      currencies: [
        { asset: 'BRL', minimum: 50, destination: { pix_key: '+5511987654321' } },
        { asset: 'MXN', minimum: 200, destination: { clabe: CLABE, bank_code: 2 } },
      ],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.currencies).toEqual([
      { asset: 'BRL', minimum: 50, destination: { kind: 'PIX_KEY', pix_key: '+5511987654321', pix_key_type: 'PHONE' } },
      { asset: 'MXN', minimum: 200, destination: { kind: 'CLABE', bank_code: '002', clabe: CLABE } },
    ]);
    const day = await businessDayAhead(service(), m);
    await clockTo(service(), m, day);
    await adjust(service(), m, 'MXN', 350_00n);
    await sweepSettlements(service().ctx);
    const made = await settlementsOf(service(), m);
    expect(made.map((s) => [s.asset, s.amount]).sort()).toEqual([
      ['BRL', expect.any(Number)],
      ['MXN', 350],
    ]);
    for (const s of made) expect((await waitForSettlement(service(), m, s.settlement_id, final)).status).toBe('PAID');
    expect(await available(service(), m, 'MXN')).toBe(0);
    expect(await available(service(), m, 'BRL')).toBe(0);
  });

  it('refuses settings it cannot use, in a fixed order, and stores nothing of a refused request', async () => {
    const m = await service().merchant();
    const codes = async (body: unknown) => {
      const answer = await putSettings(service(), m, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.errors.map((e: { code: string }) => e.code);
    };
    expect(await codes({ currencies: [{ asset: 'USD', destination: { pix_key: PIX_KEY } }] })).toEqual(['10.06.0001']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: { pix_key: PIX_KEY } }, { asset: 'BRL', destination: { pix_key: PIX_KEY } }] })).toEqual(['10.06.0002']);
    expect(await codes({ currencies: [{ asset: 'BRL', minimum: 50 }] })).toEqual(['10.06.0003']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: {} }] })).toEqual(['10.06.0003']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: { pix_key: PIX_KEY, account_number: '123' } }] })).toEqual(['10.06.0004']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: { clabe: CLABE } }] })).toEqual(['10.06.0005']);
    expect(await codes({ currencies: [{ asset: 'MXN', destination: { pix_key: PIX_KEY } }] })).toEqual(['10.06.0005']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: { pix_key: 'not a key' } }] })).toEqual(['10.06.0006']);
    expect(await codes({ currencies: [{ asset: 'BRL', destination: { type: 'CHECKING', bank_number: '34', agency_number: '1234', account_number: '1' } }] })).toEqual([
      '10.06.0007',
      '10.06.0007',
    ]);
    expect(await codes({ currencies: [{ asset: 'MXN', destination: { clabe: '002010077777777772' } }] })).toEqual(['10.06.0008']);
    expect(await codes({ currencies: [{ asset: 'MXN', destination: { clabe: CLABE, bank_code: 12 } }] })).toEqual(['10.06.0008']);
    expect(await codes({ currencies: [{ asset: 'BRL', minimum: 0.5, destination: { pix_key: PIX_KEY } }] })).toEqual(['10.06.0009']);
    expect(await codes({ currencies: [{ asset: 'BRL', minimum: 10.001, destination: { pix_key: PIX_KEY } }] })).toEqual(['10.06.0009']);
    // Every failure of the request, each with its place, and nothing stored of the valid part.
    const both = await putSettings(service(), m, { paused: true, currencies: [{ asset: 'MXN', destination: { clabe: CLABE } }, { asset: 'BRL', destination: { pix_key: 'x' } }] });
    expect(both.body.errors).toEqual([{ code: '10.06.0006', description: 'currencies[1].destination.pix_key: is not a valid CPF, CNPJ, e-mail, +55 mobile or random key.' }]);
    expect((await putSettings(service(), m, { unknown: true })).status).toBe(400);
    expect((await putSettings(service(), m, {})).status).toBe(400);
    const read = await service().get('/settlements/settings', { token: m.token });
    expect(read.body).toMatchObject({ paused: false, held: false, currencies: [] });

    // A destination removed: no more settlements in its currency.
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', minimum: 75.5 }] })).body.currencies).toEqual([expect.objectContaining({ minimum: 75.5 })]);
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', destination: null }] })).body.currencies).toEqual([]);
  });

  it("shows no other merchant's settlements or settings", async () => {
    const a = await service().merchant();
    const b = await service().merchant();
    await settledCardPayment(service(), a, { payment: { amount: '100.00' } });
    expect((await putSettings(service(), a, { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    await clockTo(service(), a, await businessDayAhead(service(), a));
    await sweepSettlements(service().ctx);
    const [settlement] = await settlementsOf(service(), a);
    expect(settlement).toBeDefined();
    const foreign = await service().get(`/settlements/${settlement!.settlement_id}`, { token: b.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors).toEqual([expect.objectContaining({ code: '10.05.0001' })]);
    expect((await service().get('/settlements/not-a-uuid', { token: a.token })).body.errors[0].code).toBe('10.05.0001');
    expect((await service().get('/settlements', { token: b.token })).body.totalElements).toBe(0);
    expect((await service().get('/settlements/settings', { token: b.token })).body.currencies).toEqual([]);
    expect((await service().get('/settlements')).status).toBe(401);
  });
});

describeEachEngine('settlements held before they are sent', (service) => {
  it('fails the PENDING settlements of a merchant the operator holds, and the job sends none of a held merchant', async () => {
    const m = await service().merchant();
    const other = await service().merchant();
    for (const merchant of [m, other]) await settledCardPayment(service(), merchant, { payment: { amount: '100.00' } });
    // From here no job runs in this suite: settlements stay PENDING until the test sends them.
    await service().background.worker.stop();
    expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    const day = await businessDayAhead(service(), m);
    const before = await owedTo(service(), m);
    await clockTo(service(), m, day);
    const [pending] = await settlementsOf(service(), m);
    expect(pending).toMatchObject({ status: 'PENDING', amount: before, arrival_date: nextBusinessDay(addDays(day, 1)) });
    expect(await available(service(), m)).toBe(0);

    const hold = await service().post(`/admin/merchants/${m.merchant_id}/settlements/hold`, { reason: 'chargeback ratio' }, { headers: admin(service()) });
    expect(hold.body.failed_settlement_ids).toEqual([pending!.settlement_id]);
    const failed = (await service().get(`/settlements/${pending!.settlement_id}`, { token: m.token })).body;
    expect(failed).toMatchObject({ status: 'FAILED', failure_code: 'CANCELED', in_transit_at: null });
    expect(await available(service(), m)).toBe(before);
    // Its job, when it runs, finds nothing to send.
    await paySettlement(service().ctx, m.merchant_id, pending!.settlement_id, 1);
    expect((await service().get(`/settlements/${pending!.settlement_id}`, { token: m.token })).body.status).toBe('FAILED');

    // A hold recorded while a settlement waits for its job (a race the locks order): the job fails it unsent.
    expect((await putSettings(service(), other, { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
    await clockTo(service(), other, await businessDayAhead(service(), other));
    const [waiting] = await settlementsOf(service(), other);
    await service().ctx.db.updateTable('settlement_settings').set({ held: true, held_reason: 'test' }).where('merchant_id', '=', other.merchant_id).execute();
    await paySettlement(service().ctx, other.merchant_id, waiting!.settlement_id, 1);
    expect((await service().get(`/settlements/${waiting!.settlement_id}`, { token: other.token })).body).toMatchObject({ status: 'FAILED', failure_code: 'CANCELED' });
    const sent = await sql<{ n: string }>`select count(*)::text as n from sandbox_operations where reference = ${`${waiting!.settlement_id}:settlement`}`.execute(service().ctx.db);
    expect(sent.rows[0]?.n).toBe('0');
    await assertBooksAgree(service(), other);
  });
});

describeEachEngine(
  'settlements in live mode',
  (service) => {
    it('keeps a settlement PENDING while no connector pays settlements, and lists it as stuck', async () => {
      const m = await service().merchant();
      expect((await putSettings(service(), m, { currencies: [{ asset: 'BRL', minimum: 50, destination: { pix_key: PIX_KEY } }] })).status).toBe(200);
      // No sandbox clock in live mode: the merchant's clock is moved here to a business day.
      const now = await clockOf(service(), m);
      const day = firstDay(addDays(balanceDay(now, 'BRL'), 1), (d) => isBusinessDay(d));
      await advanceMerchantClock(service().ctx.db, m.merchant_id, Math.ceil((new Date(`${day}T15:00:00Z`).getTime() - now.getTime()) / 1000));
      await adjust(service(), m, 'BRL', 120_00n);
      await sweepSettlements(service().ctx);
      const [settlement] = await settlementsOf(service(), m);
      expect(settlement).toMatchObject({ status: 'PENDING', amount: 120 });
      await expect(paySettlement(service().ctx, m.merchant_id, settlement!.settlement_id, 1)).rejects.toThrow(NO_SETTLEMENT_PAYER);

      // Past the retry deadline (1 s here) its job is listed for the operator, and the settlement still waits.
      const deadline = Date.now() + 15_000;
      let stuck: { kind: string; resource_id: string; last_error: string }[] = [];
      while (Date.now() < deadline) {
        stuck = (await service().get('/admin/stuck-operations', { headers: admin(service()) })).body.operations;
        if (stuck.some((op) => op.resource_id === settlement!.settlement_id)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(stuck).toEqual(expect.arrayContaining([expect.objectContaining({ kind: PAY_SETTLEMENT_JOB, resource_id: settlement!.settlement_id, last_error: NO_SETTLEMENT_PAYER })]));
      expect((await service().get(`/settlements/${settlement!.settlement_id}`, { token: m.token })).body).toMatchObject({ status: 'PENDING', in_transit_at: null });
      expect(await available(service(), m)).toBe(0);
    });
  },
  {
    env: {
      COLIBRI_MODE: 'live',
      COLIBRI_MASTER_KEY: randomBytes(32).toString('base64'),
      // Live mode starts only with its card connector configured; nothing here reaches it (port 9).
      COLIBRI_ADYEN_API_KEY: 'test-key',
      COLIBRI_ADYEN_MERCHANT_ACCOUNT: 'ColibriTest',
      COLIBRI_ADYEN_HMAC_KEY: randomBytes(32).toString('hex'),
      COLIBRI_ADYEN_CHECKOUT_URL: 'http://127.0.0.1:9',
      COLIBRI_CALLBACK_RETRY_WINDOW_MS: String(72 * 3_600_000),
      COLIBRI_RETRY_DEADLINE_MS: '1000',
    },
  },
);
