// Helpers of the 3DS tests (three-ds.test.ts over HTTP, three-ds.browser.test.ts in Chromium).
import { formatAmount } from '../src/lib/money';
import { VALID_CPF } from './fixtures';
import type { TestService } from './harness';

/** The contract's 3DS test cards, and an approved card without 3DS. */
export const CARDS = {
  frictionless: '4000000000002701',
  challenge: '4000000000002503',
  unenrolled: '4000000000002420',
  notAllowed: '4000000000002370',
  error: '4000000000002644',
  approved: '5555555555554444',
} as const;

/** A request the library accepts; `card` picks the outcome. */
export function authRequest(card: string, overrides: Record<string, unknown> = {}) {
  return {
    notificationUrl: 'https://shop.example/callbacks/3ds',
    referenceId: `order-${Math.random().toString(36).slice(2, 10)}`,
    customer: { id: VALID_CPF, name: 'Maria Silva', email: 'maria@example.com', phones: [{ country: 55, area: 11, number: 987654321, type: 'MOBILE' }] },
    paymentMethod: {
      type: 'CREDIT_CARD',
      installments: 1,
      card: { number: card, expMonth: '12', expYear: '2035', cvv: '123', holder: { name: 'MARIA SILVA' } },
    },
    amount: { value: 15050, currency: 'BRL' },
    billingAddress: { street: 'Avenida Paulista', number: '1000', regionCode: 'SP', country: 'BRA', city: 'São Paulo', postalCode: '01310100' },
    ...overrides,
  };
}

/**
 * The body of `POST /checkout/3ds/payment`: the library's id and paymentToken with the merchant's own
 * order (amount and reference), which the merchant's server knows; here it is read from the
 * authentication the test started, and the tests that send another order say so.
 */
export async function payBody(service: TestService, result: { id: string; paymentToken: string }) {
  const row = await service.ctx.db.selectFrom('three_ds_authentications').select(['amount_minor', 'reference_id']).where('id', '=', result.id).executeTakeFirst();
  return { id: result.id, paymentToken: result.paymentToken, amount: formatAmount(row?.amount_minor ?? 0n, 2), reference_id: row?.reference_id ?? 'unknown' };
}

export async function tokenOf(service: TestService, id: string): Promise<string | undefined> {
  const row = await service.ctx.db.selectFrom('three_ds_authentications').select('payment_token').where('id', '=', id).executeTakeFirst();
  return row?.payment_token;
}
