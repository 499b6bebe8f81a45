import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { advanceMerchantClock } from '../src/clock/merchant-clock';
import type { AppContext } from '../src/context';
import { openDatabase, type DatabaseHandle } from '../src/db/database';
import { startBackground, type Background } from '../src/background';
import { balances } from '../src/ledger/ledger';
import { addDays, easterSunday, nextBusinessDay } from '../src/rails/calendar';
import { buildContext } from '../src/runtime';
import { nominalDueDate } from '../src/subscriptions/schedule';
import { runSubscriptionSweep } from '../src/subscriptions/sweep';
import { scheduleDueCharges } from '../src/subscriptions/schedule-charges';
import { customerWithCard } from './fixtures';
import { describeEachEngine, startTestService, type TestMerchant, type TestService } from './harness';
import { spawnColibri, stopChildren, waitForOutput } from './processes';

const DAY_SECONDS = 86_400;
const silent = pino({ level: 'silent' });

/** The merchant clock's calendar day (UTC). */
async function today(service: TestService, m: TestMerchant): Promise<string> {
  const clock = await service.get('/sandbox/clock', { token: m.token });
  return String(clock.body.now).slice(0, 10);
}

/** Moves the merchant clock to noon UTC of `date` through the API, which also runs the sweeps at once. */
async function setClockTo(service: TestService, m: TestMerchant, date: string): Promise<void> {
  const clock = await service.get('/sandbox/clock', { token: m.token });
  const seconds = Math.ceil((Date.parse(`${date}T12:00:00Z`) - Date.parse(clock.body.now)) / 1000);
  if (seconds <= 0) return;
  const moved = await service.post('/sandbox/clock/advance', { seconds }, { token: m.token });
  expect(moved.status).toBe(200);
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface ChargeView {
  charge_id: string;
  status: string;
  due_date: string;
  requested_due_date: string;
  transaction_id: string | null;
  transaction_status: string | null;
  attempts: number;
  next_attempt_on: string | null;
  error_code: string | null;
  automatic: boolean;
}

async function charges(service: TestService, m: TestMerchant, subscriptionId: string): Promise<ChargeView[]> {
  const response = await service.get(`/subscriptions/${subscriptionId}/charges?size=100`, { token: m.token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.content as ChargeView[];
}

const allSettled = (list: ChargeView[]) => list.every((c) => c.status !== 'PENDING');

async function subscribe(service: TestService, m: TestMerchant, ids: { personId: string; cardId: string }, body: Record<string, unknown>) {
  const response = await service.post(
    '/subscriptions',
    { public_person_id: ids.personId, public_card_id: ids.cardId, amount_type: 'FIXED', amount: '49.90', asset: 'BRL', interval: 'MONTHLY', ...body },
    { token: m.token },
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { subscription_id: string; status: string; next_due_date: string | null };
}

/** The first `month`-`day` strictly after `from`. */
function nextOccurrence(from: string, monthDay: string): string {
  const year = Number(from.slice(0, 4));
  const candidate = `${year}-${monthDay}`;
  return candidate > from ? candidate : `${year + 1}-${monthDay}`;
}

/** The first Carnival Monday strictly after `from` (48 days before Easter). */
function nextCarnivalMonday(from: string): string {
  for (let year = Number(from.slice(0, 4)); ; year += 1) {
    const monday = addDays(easterSunday(year), -48);
    if (monday > from) return monday;
  }
}

describeEachEngine('subscriptions', (service) => {
  it('creates, reads and lists subscriptions with their rules', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const start = addDays(await today(service(), m), 10);
    const created = await service().post(
      '/subscriptions',
      { public_person_id: ids.personId, public_card_id: ids.cardId, amount_type: 'FIXED', amount: 29.9, asset: 'BRL', interval: 'WEEKLY', first_due_date: start, reference_id: 'plan-gold' },
      { token: m.token },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      subscription_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'ACTIVE',
      public_person_id: ids.personId,
      public_card_id: ids.cardId,
      amount_type: 'FIXED',
      amount: 29.9,
      asset: 'BRL',
      interval: 'WEEKLY',
      first_due_date: start,
      force_work_day: false,
      reference_id: 'plan-gold',
      next_due_date: start,
      refresh_token: expect.any(String),
    });
    const read = await service().get(`/subscriptions/${created.body.subscription_id}`, { token: m.token });
    expect(read.status).toBe(200);
    expect(read.body.subscription_id).toBe(created.body.subscription_id);

    const variable = await subscribe(service(), m, ids, { amount_type: 'VARIABLE', amount: undefined, asset: undefined, first_due_date: start });
    expect(variable.next_due_date).toBeNull();
    const page = await service().get('/subscriptions?size=1&page=0', { token: m.token });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 0, size: 1, total_elements: 2, total_pages: 2 });
    expect(page.body.content.map((s: { subscription_id: string }) => s.subscription_id)).toEqual([variable.subscription_id]);
    const tooBig = await service().get('/subscriptions?size=101', { token: m.token });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors[0].code).toBe('00.01.0006');

    const body = { public_person_id: ids.personId, public_card_id: ids.cardId, interval: 'MONTHLY', first_due_date: start };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...body, amount_type: 'FIXED', asset: 'BRL' }, '04.01.0003'],
      [{ ...body, amount_type: 'VARIABLE', amount: '10.00' }, '04.01.0004'],
      [{ ...body, amount_type: 'FIXED', amount: '10.00', asset: 'BRL', first_due_date: addDays(start, -11) }, '04.01.0002'],
      [{ ...body, amount_type: 'FIXED', amount: '10.00', asset: 'BRL', first_due_date: '2027-02-29' }, '04.01.0001'],
      [{ ...body, amount_type: 'FIXED', amount: '10.00', asset: 'BRL', interval: 'DAILY' }, '00.01.0005'],
      [{ ...body, amount_type: 'FIXED', amount: '0.99', asset: 'BRL' }, '00.04.0002'],
      [{ ...body, amount_type: 'FIXED', amount: '10.00', asset: 'BRL', public_card_id: '00000000-0000-4000-8000-000000000000' }, '00.04.0009'],
    ];
    for (const [request, code] of cases) {
      const response = await service().post('/subscriptions', request, { token: m.token });
      expect(response.status, JSON.stringify(request)).toBe(400);
      expect(response.body.errors.map((e: { code: string }) => e.code), JSON.stringify(request)).toEqual([code]);
    }
  });

  it('charges a monthly subscription exactly 13 times in 13 months, keeping a 31st anchor', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const anchor = nextOccurrence(await today(service(), m), '01-31');
    const expected = Array.from({ length: 13 }, (_, n) => nominalDueDate(anchor, 'MONTHLY', n));
    expect(expected.slice(0, 3)).toEqual([anchor, nominalDueDate(anchor, 'MONTHLY', 1), anchor.replace('-01-31', '-03-31')]);
    expect(expected[1]).toMatch(/-02-2[89]$/);
    const sub = await subscribe(service(), m, ids, { first_due_date: anchor, amount: '49.90' });

    for (const [n, date] of expected.entries()) {
      await setClockTo(service(), m, addDays(date, -1));
      expect((await charges(service(), m, sub.subscription_id)).length, `the day before ${date}`).toBe(n);
      await setClockTo(service(), m, date);
      await waitFor(() => charges(service(), m, sub.subscription_id), (list) => list.length === n + 1 && allSettled(list), `charge ${n + 1}`);
    }
    await setClockTo(service(), m, addDays(nominalDueDate(anchor, 'MONTHLY', 13), -1));
    const list = await charges(service(), m, sub.subscription_id);
    expect(list.map((c) => c.due_date)).toEqual(expected);
    expect(list.every((c) => c.status === 'PAID' && c.transaction_status === 'PAID' && c.attempts === 1 && c.automatic)).toBe(true);
    expect(new Set(list.map((c) => c.transaction_id)).size).toBe(13);

    // Each charge's money is in the ledger through its card payment's capture journal.
    const ledger = await balances(service().ctx.db, m.merchant_id);
    expect(ledger.processor_receivable).toBe(13n * 4990n);
    const events = await service()
      .ctx.db.selectFrom('events')
      .select(['resource_id', 'data'])
      .where('merchant_id', '=', m.merchant_id)
      .where('type', '=', 'subscription_charge.status_changed')
      .execute();
    const statuses = events.map((e) => (e.data as { status: string }).status);
    expect(statuses.filter((s) => s === 'PENDING')).toHaveLength(13);
    expect(statuses.filter((s) => s === 'PAID')).toHaveLength(13);
  });

  it('moves due dates off holidays and weekends with force_work_day, and only with it', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const christmas = nextOccurrence(await today(service(), m), '12-25');
    const moved = nextBusinessDay(christmas);
    expect(moved > christmas).toBe(true);
    const forced = await subscribe(service(), m, ids, { interval: 'YEARLY', first_due_date: christmas, force_work_day: true });
    const plain = await subscribe(service(), m, ids, { interval: 'YEARLY', first_due_date: christmas });
    expect(forced.next_due_date).toBe(moved);
    expect(plain.next_due_date).toBe(christmas);

    await setClockTo(service(), m, christmas);
    await waitFor(() => charges(service(), m, plain.subscription_id), (list) => list.length === 1, 'the plain charge');
    expect((await charges(service(), m, plain.subscription_id))[0]?.due_date).toBe(christmas);
    expect(await charges(service(), m, forced.subscription_id)).toHaveLength(0);
    await setClockTo(service(), m, moved);
    const forcedCharges = await waitFor(() => charges(service(), m, forced.subscription_id), (list) => list.length === 1, 'the moved charge');
    expect(forcedCharges[0]).toMatchObject({ due_date: moved, requested_due_date: christmas });

    // Carnival Monday and Tuesday are banking holidays: the charge endpoint moves a due date on them
    // with force_work_day (the request's overrides the subscription's) and keeps it without.
    const variable = await subscribe(service(), m, ids, { amount_type: 'VARIABLE', amount: undefined, asset: undefined, first_due_date: await today(service(), m), force_work_day: true });
    const carnival = nextCarnivalMonday(await today(service(), m));
    const charge = (date: string, extra: Record<string, unknown> = {}) =>
      service().post(`/subscriptions/${variable.subscription_id}/charge`, { due_date: date, amount: 10, asset: 'BRL', ...extra }, { token: m.token });
    const onMonday = await charge(carnival);
    expect(onMonday.status, JSON.stringify(onMonday.body)).toBe(200);
    // The spec shows a charge's transaction PROCESSING at creation, also when it waits for its due date.
    expect(onMonday.body.transaction_status).toBe('PROCESSING');
    const onTuesday = await charge(addDays(carnival, 1), { force_work_day: false });
    expect(onTuesday.status).toBe(200);
    // Monday moves to Ash Wednesday, the next business day; Tuesday stays, as asked.
    const dates = (await charges(service(), m, variable.subscription_id)).map((c) => [c.requested_due_date, c.due_date]);
    expect(dates).toEqual([
      [addDays(carnival, 1), addDays(carnival, 1)],
      [carnival, addDays(carnival, 2)],
    ]);
    // The moved Tuesday charge is also taken: a second charge on that day is refused.
    const again = await charge(addDays(carnival, 1), { force_work_day: false });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('04.02.0002');
  });

  it('retries a declined card 1, 3 and 5 days after the first attempt, then fails the charge and the subscription turns PAST_DUE', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m, '4000000000000002');
    const first = await today(service(), m);
    const sub = await subscribe(service(), m, ids, { first_due_date: first, notification_url: 'https://shop.example/subscriptions' });
    const read = (id = sub.subscription_id) => charges(service(), m, id);
    for (const [attempt, retryOn] of [[1, addDays(first, 1)], [2, addDays(first, 3)], [3, addDays(first, 5)]] as const) {
      const [charge] = await waitFor(read, (list) => list[0]?.attempts === attempt && list[0].next_attempt_on !== null, `attempt ${attempt} to fail`);
      expect(charge).toMatchObject({ status: 'PENDING', next_attempt_on: retryOn, error_code: '51' });
      await setClockTo(service(), m, addDays(retryOn, -1));
      expect((await read())[0]?.attempts).toBe(attempt);
      await setClockTo(service(), m, retryOn);
    }
    const [failed] = await waitFor(read, (list) => list[0]?.status === 'FAILED', 'the charge to fail');
    expect(failed).toMatchObject({ attempts: 4, next_attempt_on: null, error_code: '51', transaction_status: 'DECLINED' });
    const subscription = await service().get(`/subscriptions/${sub.subscription_id}`, { token: m.token });
    expect(subscription.body.status).toBe('PAST_DUE');
    const attempts = await service().ctx.db.selectFrom('subscription_charge_attempts').selectAll().where('charge_id', '=', failed?.charge_id ?? '').orderBy('attempt').execute();
    expect(attempts.map((a) => a.attempted_on)).toEqual([first, addDays(first, 1), addDays(first, 3), addDays(first, 5)]);
    const event = await service()
      .ctx.db.selectFrom('events')
      .selectAll()
      .where('resource_id', '=', failed?.charge_id ?? '')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({ type: 'subscription_charge.status_changed', notification_urls: ['https://shop.example/subscriptions'] });
    expect(event.data).toMatchObject({ status: 'FAILED', subscription_id: sub.subscription_id, charge_id: failed?.charge_id, reference_id: sub.subscription_id });
  });

  it('stops charging a canceled subscription and cancels its waiting charges', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const first = await today(service(), m);
    const sub = await subscribe(service(), m, ids, { interval: 'WEEKLY', first_due_date: first });
    await waitFor(() => charges(service(), m, sub.subscription_id), (list) => list.length === 1 && allSettled(list), 'the first charge');
    const ahead = await service().post(`/subscriptions/${sub.subscription_id}/charge`, { due_date: addDays(first, 3) }, { token: m.token });
    expect(ahead.status, JSON.stringify(ahead.body)).toBe(200);
    expect(ahead.body.transaction_status).toBe('PROCESSING');
    // Waiting for its due date, it is not sent to the processor: no attempt is counted.
    await service().background.sweep();
    expect((await charges(service(), m, sub.subscription_id))[1]).toMatchObject({ status: 'PENDING', transaction_status: 'PROCESSING', attempts: 0, next_attempt_on: addDays(first, 3) });

    const canceled = await service().post(`/subscriptions/${sub.subscription_id}/cancel`, undefined, { token: m.token });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'CANCELED', next_due_date: null, canceled_at: expect.any(String) });
    await setClockTo(service(), m, addDays(first, 60));
    const list = await charges(service(), m, sub.subscription_id);
    expect(list.map((c) => c.status)).toEqual(['PAID', 'CANCELED']);
    const details = await service().get(`/transactionDetails/${ahead.body.transaction_id}`, { token: m.token });
    expect(details.body.general_info.transaction_status).toBe('CANCELED');

    const twice = await service().post(`/subscriptions/${sub.subscription_id}/cancel`, undefined, { token: m.token });
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].code).toBe('04.02.0001');
    const charge = await service().post(`/subscriptions/${sub.subscription_id}/charge`, { due_date: addDays(first, 61) }, { token: m.token });
    expect(charge.status).toBe(422);
    expect(charge.body.errors[0].code).toBe('04.02.0001');
  });

  it('answers a charge due later with its transaction PROCESSING and sends it to the processor on its due date', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const now = await today(service(), m);
    const variable = await subscribe(service(), m, ids, { amount_type: 'VARIABLE', amount: undefined, asset: undefined, first_due_date: now });
    const due = addDays(now, 4);
    const created = await service().post(`/subscriptions/${variable.subscription_id}/charge`, { due_date: due, amount: 12, asset: 'BRL', force_work_day: false }, { token: m.token });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ status: 'PENDING', transaction_status: 'PROCESSING' });
    const token = created.body.transaction_id as string;
    const history = async () => (await service().get(`/transactionDetails/${token}`, { token: m.token })).body.transaction_history.map((h: { status: string }) => h.status);
    expect(await history()).toEqual(['PROCESSING', 'CREATED']);

    // The day before: still waiting, never sent.
    await setClockTo(service(), m, addDays(due, -1));
    await service().background.sweep();
    expect((await charges(service(), m, variable.subscription_id))[0]).toMatchObject({ attempts: 0, transaction_status: 'PROCESSING', next_attempt_on: due });
    const sent = await service().ctx.db.selectFrom('sandbox_operations').select('reference').where('reference', '=', `${token}:authorize`).execute();
    expect(sent).toHaveLength(0);

    // On the day it is sent once and paid, with no second PROCESSING line in its history.
    await setClockTo(service(), m, due);
    const [paid] = await waitFor(() => charges(service(), m, variable.subscription_id), (list) => list[0]?.status === 'PAID', 'the charge to be paid');
    expect(paid).toMatchObject({ attempts: 1, transaction_id: token, transaction_status: 'PAID' });
    expect(await history()).toEqual(['PAID', 'PROCESSING', 'CREATED']);
  });

  it('answers the charge endpoint with exactly the spec resource and enforces every field rule', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const now = await today(service(), m);
    const variable = await subscribe(service(), m, ids, { amount_type: 'VARIABLE', amount: undefined, asset: undefined, first_due_date: now, reference_id: 'club-77' });
    const fixed = await subscribe(service(), m, ids, { first_due_date: addDays(now, 1) });
    const charge = (id: string, body: unknown, merchant = m) => service().post(`/subscriptions/${id}/charge`, body, { token: merchant.token });

    const ok = await charge(variable.subscription_id, { due_date: now, amount: 25.5, asset: 'BRL', reference_id: 'x'.repeat(45) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(['reference_id', 'refresh_token', 'status', 'subscription_id', 'totals', 'transaction_id', 'transaction_reference_id', 'transaction_status']);
    expect(ok.body).toMatchObject({
      subscription_id: variable.subscription_id,
      reference_id: 'x'.repeat(45),
      status: 'PENDING',
      transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      transaction_status: 'PROCESSING',
      transaction_reference_id: 'x'.repeat(45),
      totals: { amount: 25.5, asset: 'BRL', original_amount: 25.5, original_asset: 'BRL', customer_fees: 0, customer_amount: 25.5 },
    });
    const details = await service().get(`/transactionDetails/${ok.body.transaction_id}`, { token: m.token });
    expect(details.body.payment_info.subscription_id).toBe(variable.subscription_id);
    const defaulted = await charge(variable.subscription_id, { due_date: addDays(now, 1), amount: '10.00', asset: 'USD' });
    expect(defaulted.status, JSON.stringify(defaulted.body)).toBe(200);
    expect(defaulted.body.reference_id).toBe('club-77');
    expect(defaulted.body.totals).toMatchObject({ original_amount: 10, original_asset: 'USD', asset: 'BRL', amount: 53.41 });
    const fixedCharge = await charge(fixed.subscription_id, { due_date: now });
    expect(fixedCharge.status, JSON.stringify(fixedCharge.body)).toBe(200);
    expect(fixedCharge.body.totals.original_amount).toBe(49.9);

    const cases: Array<[string, unknown, string]> = [
      [variable.subscription_id, { amount: 10, asset: 'BRL' }, '00.01.0001'],
      [variable.subscription_id, { due_date: 20261201, amount: 10, asset: 'BRL' }, '00.01.0002'],
      [variable.subscription_id, { due_date: '2026/12/01', amount: 10, asset: 'BRL' }, '04.01.0001'],
      [variable.subscription_id, { due_date: '2027-02-30', amount: 10, asset: 'BRL' }, '04.01.0001'],
      [variable.subscription_id, { due_date: addDays(now, 6 * 366), amount: 10, asset: 'BRL' }, '04.01.0002'],
      [variable.subscription_id, { due_date: addDays(now, -400), amount: 10, asset: 'BRL' }, '04.01.0002'],
      [variable.subscription_id, { due_date: addDays(now, 2) }, '04.01.0005'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 10 }, '04.01.0005'],
      [variable.subscription_id, { due_date: addDays(now, 2), asset: 'BRL' }, '04.01.0005'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 10.123, asset: 'BRL' }, '00.01.0044'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: '0.50', asset: 'BRL' }, '00.04.0002'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 10, asset: 'XYZ' }, '00.04.0003'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 'ten', asset: 'BRL' }, '00.01.0003'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 10, asset: 'BRL', reference_id: 'x'.repeat(46) }, '00.01.0004'],
      [variable.subscription_id, { due_date: addDays(now, 2), amount: 10, asset: 'BRL', force_work_day: 'yes' }, '00.01.0002'],
      [fixed.subscription_id, { due_date: addDays(now, 2), amount: 10 }, '04.01.0006'],
      [fixed.subscription_id, { due_date: addDays(now, 2), asset: 'BRL' }, '04.01.0006'],
    ];
    for (const [id, body, code] of cases) {
      const response = await charge(id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors.map((e: { code: string }) => e.code), JSON.stringify(body)).toEqual([code]);
    }
    const duplicate = await charge(variable.subscription_id, { due_date: now, amount: 30, asset: 'BRL' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0].code).toBe('04.02.0002');
    // Nothing was stored by the refused requests.
    expect(await charges(service(), m, variable.subscription_id)).toHaveLength(2);
  });

  it("treats another merchant's subscription as not found", async () => {
    const owner = await service().merchant();
    const other = await service().merchant('Other');
    const ids = await customerWithCard(service(), owner);
    const sub = await subscribe(service(), owner, ids, { first_due_date: addDays(await today(service(), owner), 5) });
    const attempts = [
      service().post(`/subscriptions/${sub.subscription_id}/charge`, { due_date: addDays(await today(service(), other), 6) }, { token: other.token }),
      service().get(`/subscriptions/${sub.subscription_id}`, { token: other.token }),
      service().get(`/subscriptions/${sub.subscription_id}/charges`, { token: other.token }),
      service().post(`/subscriptions/${sub.subscription_id}/cancel`, undefined, { token: other.token }),
      service().get('/subscriptions/not-a-uuid', { token: owner.token }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body.errors[0].code).toBe('00.05.0001');
    }
    expect((await service().get('/subscriptions', { token: other.token })).body.total_elements).toBe(0);
    const otherIds = await customerWithCard(service(), other);
    const foreignCard = await service().post(
      '/subscriptions',
      { public_person_id: otherIds.personId, public_card_id: ids.cardId, amount_type: 'VARIABLE', interval: 'MONTHLY', first_due_date: addDays(await today(service(), other), 1) },
      { token: other.token },
    );
    expect(foreignCard.status).toBe(400);
    expect(foreignCard.body.errors.map((e: { code: string }) => e.code)).toEqual(['00.04.0009']);
    expect((await service().get(`/subscriptions/${sub.subscription_id}`, { token: owner.token })).status).toBe(200);
  });
});

/** A second service on the same database: a new context, job worker, sweeps and HTTP app. */
async function startPeer(service: TestService, handle: DatabaseHandle) {
  const ctx: AppContext = await buildContext(service.config, handle, service.ctx.adminToken);
  const background: Background = startBackground(ctx, silent, { pollMs: 50, sweepScale: 0.01 });
  const app = await buildApp(ctx, { logger: false, background });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ctx,
    background,
    stop: async () => {
      await app.close();
      await background.stop();
    },
  };
}

/** For PostgreSQL a separate connection pool, so each peer really runs its own transactions. */
async function peerHandle(service: TestService): Promise<DatabaseHandle & { owned: boolean }> {
  if (service.engine === 'postgres' && service.database.url) {
    return { ...(await openDatabase({ engine: 'postgres', url: service.database.url, poolSize: 5 })), owned: true };
  }
  return { ...service.database.handle, owned: false };
}

describeEachEngine('subscription scheduler: several processes and restarts', (service) => {
  it('lets two schedulers racing on one database charge every due date exactly once', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const first = addDays(await today(service(), m), 1);
    const subs = [];
    for (let i = 0; i < 8; i += 1) subs.push(await subscribe(service(), m, ids, { interval: 'WEEKLY', first_due_date: first }));

    const handles = [await peerHandle(service()), await peerHandle(service())];
    const peers = [await startPeer(service(), handles[0]!), await startPeer(service(), handles[1]!)];
    try {
      for (const days of [1, 7]) {
        // Move the clock without the API's sweep, then let both peers (and the service's own worker) race.
        await advanceMerchantClock(service().ctx.db, m.merchant_id, days * DAY_SECONDS);
        await Promise.all([0, 1, 2, 3, 4, 5].map((i) => runSubscriptionSweep(peers[i % 2]!.ctx)));
      }
      for (const sub of subs) {
        const list = await waitFor(() => charges(service(), m, sub.subscription_id), (l) => l.length === 2 && allSettled(l), 'two paid charges');
        expect(list.map((c) => [c.due_date, c.status, c.attempts])).toEqual([
          [first, 'PAID', 1],
          [addDays(first, 7), 'PAID', 1],
        ]);
        const payments = await service().ctx.db.selectFrom('payments').select('payment_token').where('subscription_id', '=', sub.subscription_id).execute();
        expect(payments).toHaveLength(2);
      }
    } finally {
      for (const peer of peers) await peer.stop();
      for (const handle of handles) if (handle.owned) await handle.close();
    }
  });

  it('charges nothing twice across restarts, even when stopped between a charge and its payment', async () => {
    const m = await service().merchant();
    const ids = await customerWithCard(service(), m);
    const first = addDays(await today(service(), m), 1);
    const sub = await subscribe(service(), m, ids, { first_due_date: first });

    // The service stops; the day comes; a scheduler pass stores the charge and its payment job, and
    // the process dies before any worker runs the job.
    await service().background.stop();
    await advanceMerchantClock(service().ctx.db, m.merchant_id, DAY_SECONDS);
    expect(await scheduleDueCharges(service().ctx)).toBe(1);
    const stored = await charges(service(), m, sub.subscription_id);
    expect(stored.map((c) => [c.status, c.transaction_status])).toEqual([['PENDING', 'PROCESSING']]);

    // A new service on the same database finishes the work and charges the due date once.
    const restarted = await startPeer(service(), service().database.handle);
    try {
      const list = await waitFor(() => charges(service(), m, sub.subscription_id), (l) => l.length === 1 && allSettled(l), 'the charge to settle');
      expect(list[0]).toMatchObject({ due_date: first, status: 'PAID', attempts: 1, transaction_id: stored[0]?.transaction_id });
      for (let i = 0; i < 3; i += 1) await restarted.background.sweep();
    } finally {
      await restarted.stop();
    }

    // And again: a third start, a month later, adds exactly the next period.
    const again = await startPeer(service(), service().database.handle);
    try {
      await again.background.sweep();
      expect(await charges(service(), m, sub.subscription_id)).toHaveLength(1);
      const next = nominalDueDate(first, 'MONTHLY', 1);
      await advanceMerchantClock(service().ctx.db, m.merchant_id, (Date.parse(`${next}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / 1000);
      await Promise.all([again.background.sweep(), again.background.sweep()]);
      const list = await waitFor(() => charges(service(), m, sub.subscription_id), (l) => l.length === 2 && allSettled(l), 'the second charge');
      expect(list.map((c) => c.due_date)).toEqual([first, next]);
      const payments = await service().ctx.db.selectFrom('payments').select('payment_token').where('subscription_id', '=', sub.subscription_id).execute();
      expect(payments).toHaveLength(2);
    } finally {
      await again.stop();
    }
  });
});

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
if (process.env.CI && !process.env.TEST_DATABASE_URL) {
  it('two scheduler processes on one PostgreSQL (needs TEST_DATABASE_URL, which CI sets)', () => {
    throw new Error('TEST_DATABASE_URL is not set: the two-process scheduler test cannot run');
  });
}

onPostgres('subscription scheduler in two OS processes on one PostgreSQL [postgres]', () => {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService('postgres');
    // This process only sets the scene through the API: the two workers below do all the charging.
    await service.background.stop();
  });
  afterAll(async () => {
    await service?.close();
  });

  it('two `colibri worker` processes charge every due date of 12 subscriptions exactly once', async () => {
    const s = service as TestService;
    const m = await s.merchant();
    const ids = await customerWithCard(s, m);
    const first = addDays(await today(s, m), 1);
    const subs = [];
    for (let i = 0; i < 12; i += 1) subs.push(await subscribe(s, m, ids, { interval: 'WEEKLY', first_due_date: first }));

    // Same database and data directory (the card key lives there); sweeps 100 times as frequent.
    const env = { DATABASE_URL: s.database.url ?? '', COLIBRI_DATA_DIR: s.config.dataDir, COLIBRI_SWEEP_PERCENT: '1', COLIBRI_SANDBOX_DELAY_MS: '5' };
    const workers = [spawnColibri('worker', env), spawnColibri('worker', env)];
    try {
      await Promise.all(workers.map((w) => waitForOutput(w, 'worker running')));
      // With both polling, four weeks pass at once: five due dates per subscription fall due together.
      await advanceMerchantClock(s.ctx.db, m.merchant_id, 29 * DAY_SECONDS);
      const expected = [0, 7, 14, 21, 28].map((days) => [addDays(first, days), 'PAID', 1]);
      for (const sub of subs) {
        const list = await waitFor(() => charges(s, m, sub.subscription_id), (l) => l.length >= 5 && allSettled(l), 'five settled charges', 60_000);
        expect(list.map((c) => [c.due_date, c.status, c.attempts]).sort()).toEqual(expected);
      }

      // One payment per charge and one authorisation at the processor per payment: 12 × 5 = 60.
      const db = s.ctx.db;
      const subscriptionIds = subs.map((sub) => sub.subscription_id);
      const payments = await db.selectFrom('payments').select(['payment_token', 'status']).where('subscription_id', 'in', subscriptionIds).execute();
      expect(payments).toHaveLength(60);
      expect(payments.every((p) => p.status === 'PAID')).toBe(true);
      const authorizations = await db
        .selectFrom('sandbox_operations')
        .select('reference')
        .where('merchant_id', '=', m.merchant_id)
        .where('operation', '=', 'authorize')
        .execute();
      expect(new Set(authorizations.map((a) => a.reference)).size).toBe(60);
      expect(authorizations).toHaveLength(60);
      expect(await stopChildren(workers)).toEqual([0, 0]);
    } finally {
      await stopChildren(workers);
    }
  }, 120_000);
});
