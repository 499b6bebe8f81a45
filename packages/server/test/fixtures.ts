import { expect } from 'vitest';
import type { Db } from '../src/db/database';
import { computeFees, DEFAULT_FEE_PLAN } from '../src/fees/fee-plan';
import type { NewPayment } from '../src/payments/create-payment';
import { loadOperations, type LoadedOperation } from '../src/payments/apply-outcome';
import { describeOperation } from '../src/payments/operations';
import type { PaymentRow } from '../src/payments/payment-record';
import type { OperationKind } from '../src/payments/states';
import type { TestMerchant, TestService } from './harness';

/** Shared test fixtures: customers, cards, payments and waiting for asynchronous outcomes. */

export const VALID_CPF = '529.982.247-25';

export async function customerWithCard(service: TestService, merchant: TestMerchant, number = '4111111111111111') {
  const person = await service.post(
    '/checkout/person',
    { name: 'Maria Silva', email: 'maria@example.com', tax_id: VALID_CPF, tax_id_type: 'CPF' },
    { token: merchant.token },
  );
  expect(person.status, JSON.stringify(person.body)).toBe(200);
  const card = await service.post(
    '/checkout/card',
    { public_person_id: person.body.public_person_id, number, exp_month: '12', exp_year: '2035', cvv: number.startsWith('3') && number.length === 15 ? '1234' : '123', holder_name: 'MARIA SILVA' },
    { token: merchant.token },
  );
  expect(card.status, JSON.stringify(card.body)).toBe(200);
  return { personId: person.body.public_person_id as string, cardId: card.body.public_card_id as string };
}

export function paymentBody(merchant: TestMerchant, ids: { personId: string; cardId: string }, overrides: Record<string, unknown> = {}) {
  const { payment, ...rest } = overrides as { payment?: Record<string, unknown> };
  return {
    contract_id: merchant.contract_id,
    reference_id: `order-${Math.random().toString(36).slice(2, 10)}`,
    public_person_id: ids.personId,
    public_card_id: ids.cardId,
    payment: { amount: '100.00', method: 'CREDITCARD', asset: 'BRL', installments: 1, ...payment },
    ...rest,
  };
}

/** Polls transaction details until the payment leaves the given transient statuses. */
export async function waitForStatus(service: TestService, merchant: TestMerchant, token: string, until: (status: string) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const details = await service.get(`/transactionDetails/${token}`, { token: merchant.token });
    const status = details.body?.general_info?.transaction_status as string | undefined;
    if (status && until(status)) return details.body;
    if (Date.now() > deadline) throw new Error(`payment ${token} still ${status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const settled = (status: string) => status !== 'PROCESSING' && status !== 'CREATED';

/**
 * A card payment of a new customer, sent with `paymentBody(…, overrides)` (and the card `number`), then
 * waited for until it leaves PROCESSING: its token, the customer's ids and its transaction details.
 * @example const { token, details } = await settledCardPayment(service, m, { payment: { amount: '50.00' } });
 */
export async function settledCardPayment(service: TestService, merchant: TestMerchant, overrides: Record<string, unknown> = {}, number?: string) {
  const ids = await customerWithCard(service, merchant, number);
  const sent = await service.post('/checkout/sendPayment', paymentBody(merchant, ids, overrides), { token: merchant.token });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const token = sent.body.payment_token as string;
  return { token, ...ids, details: await waitForStatus(service, merchant, token, settled) };
}

/**
 * An operation in flight on a payment, stored without its job so that no worker answers it: for tests
 * that apply answers themselves (payments/apply-outcome.ts). An authorisation asks for what the
 * customer pays; a capture or cancel for `amountMinor`, or the amount authorised.
 */
export async function operationWithoutJob(
  db: Db,
  payment: Pick<PaymentRow, 'payment_token' | 'merchant_id' | 'amount_minor' | 'customer_fees_minor'> & Partial<PaymentRow>,
  kind: OperationKind,
  amountMinor?: bigint,
): Promise<LoadedOperation> {
  const amount = amountMinor ?? (kind === 'authorize' ? payment.amount_minor + payment.customer_fees_minor : (payment.authorized_minor ?? 0n));
  const { row } = describeOperation({ payment, kind, amountMinor: amount, at: new Date() });
  await db.insertInto('payment_operations').values(row).execute();
  const [loaded] = await loadOperations(db, [row.id]);
  if (!loaded) throw new Error(`operation ${row.id} not stored`);
  return loaded;
}

/**
 * The jobs of a payment's operations (each job's unique key is its operation's reference), as the worker would
 * claim them.
 */
export async function operationJobs(db: Db, paymentToken: string) {
  const operations = await db.selectFrom('payment_operations').select('reference').where('payment_token', '=', paymentToken).execute();
  if (operations.length === 0) return [];
  return db
    .selectFrom('jobs')
    .select(['id', 'kind', 'payload', 'unique_key', 'max_attempts', 'last_error'])
    .where('unique_key', 'in', operations.map((o) => o.reference))
    .orderBy('id')
    .execute();
}

/**
 * Makes a finished keyed request look as if its process died after its effect committed, before its
 * answer was stored: the key's claim is left in progress, its lease lapsed, so a retry takes it over.
 */
export async function crashAfterCommit(db: Db, key: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'IN_PROGRESS', response_status: null, response_body: null, lease_until: new Date(Date.now() - 1000), owner: 'a-dead-process' })
    .where('key', '=', key)
    .execute();
}

/** A card payment of 10.00 BRL validated and priced on the default plan, ready for createPayment(s) (payments/create-payment.ts). */
export function pricedCardPayment(m: TestMerchant, personId: string, cardId: string): NewPayment {
  const amount = 1000n;
  return {
    merchantId: m.merchant_id,
    contractId: m.contract_id,
    referenceId: 'batch',
    method: 'CREDITCARD',
    personId,
    cardId,
    originalMinor: amount,
    originalCurrency: 'BRL',
    price: { amountMinor: amount, currency: 'BRL', fxRate: null, fxRateDate: null },
    plan: DEFAULT_FEE_PLAN,
    fees: computeFees(DEFAULT_FEE_PLAN.payments, amount),
    installments: 1,
    delayCapture: false,
    softDescriptor: null,
    extraData: { batch: true },
    ipAddress: null,
    notificationUrl: null,
    authentication: undefined,
    subscriptionId: null,
    now: new Date(),
  };
}
