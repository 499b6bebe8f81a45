import { describe, expect, it } from 'vitest';
import { isIsoAlpha3 } from './countries';
import { luhn, validateRequest } from './validate';

const valid = () => ({
  notificationUrl: 'https://shop.example/callbacks',
  referenceId: 'order-1',
  customer: { id: '52998224725', name: 'Maria Silva', email: 'maria@example.com', phones: [{ area: 11, number: 987654321 }] },
  paymentMethod: { type: 'CREDIT_CARD', card: { number: '4111111111111111', expMonth: '07', expYear: '2030', cvv: '123', holder: { name: 'MARIA SILVA' } } },
  amount: { value: 1050, currency: 'BRL' },
  billingAddress: { street: 'Rua A', number: '10', regionCode: 'SP', city: 'São Paulo', postalCode: '01310100' },
});

const fieldsOf = (input: unknown) => {
  const result = validateRequest(input);
  return result.ok ? [] : result.fields.map((f) => f.field);
};

describe('validateRequest', () => {
  it('accepts a complete request and fills the defaults', () => {
    const result = validateRequest(valid());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request.paymentMethod.installments).toBe(1);
    expect(result.request.billingAddress?.country).toBe('BRA');
    expect(result.request.customer.phones[0]).toEqual({ area: 11, number: 987654321, country: 55, type: 'MOBILE' });
    expect(result.request.disableAddress).toBe(false);
  });

  it('requires every required field and names each one', () => {
    expect(fieldsOf({})).toEqual(['notificationUrl', 'referenceId', 'customer', 'paymentMethod', 'amount', 'billingAddress']);
    expect(fieldsOf(null)).toEqual(['request']);
  });

  it('relaxes the address with disableAddress and partialAddress, but never postalCode and number', () => {
    expect(fieldsOf({ ...valid(), billingAddress: undefined, disableAddress: true })).toEqual([]);
    expect(fieldsOf({ ...valid(), billingAddress: { partialAddress: true, number: '10', postalCode: '01310100' } })).toEqual([]);
    expect(fieldsOf({ ...valid(), billingAddress: { partialAddress: true } })).toEqual(['billingAddress.number', 'billingAddress.postalCode']);
    expect(fieldsOf({ ...valid(), billingAddress: { number: '10', postalCode: '01310100' } })).toEqual([
      'billingAddress.street',
      'billingAddress.regionCode',
      'billingAddress.city',
    ]);
    expect(fieldsOf({ ...valid(), shippingAddress: { number: '1', postalCode: '0131010', country: 'XYZ', partialAddress: true } })).toEqual([
      'shippingAddress.country',
      'shippingAddress.postalCode',
    ]);
  });

  it('applies the limits: phone, installments, cents, currency, century, Luhn and card type', () => {
    const request = valid();
    request.customer.phones = [{ area: 123, number: 1234567 }];
    Object.assign(request.paymentMethod, { type: 'VOUCHER', installments: 0 });
    Object.assign(request.paymentMethod.card, { number: '4111111111111112', expYear: '30' });
    request.amount = { value: 10.5, currency: 'EUR' };
    expect(fieldsOf(request)).toEqual([
      'customer.phones[0].area',
      'customer.phones[0].number',
      'paymentMethod.type',
      'paymentMethod.installments',
      'paymentMethod.card.number',
      'paymentMethod.card.expYear',
      'amount.value',
      'amount.currency',
    ]);
    const edges = valid();
    edges.customer.phones = [{ area: 21, number: 12345678 }];
    Object.assign(edges.paymentMethod, { type: 'DEBIT_CARD', installments: 12 });
    expect(fieldsOf(edges)).toEqual([]);
  });

  it('rejects card numbers with anything but digits', () => {
    const request = valid();
    request.paymentMethod.card.number = '4111 1111 1111 1111';
    expect(fieldsOf(request)).toEqual(['paymentMethod.card.number']);
  });
});

describe('luhn and countries', () => {
  it('checks Luhn digits', () => {
    expect(luhn('4000000000002701')).toBe(true);
    expect(luhn('4000000000002702')).toBe(false);
  });
  it('knows the alpha-3 codes and nothing else', () => {
    expect(['BRA', 'PER', 'USA', 'ZWE', 'ABW'].every(isIsoAlpha3)).toBe(true);
    expect(['BR', 'XYZ', 'bra', 'BRA ', 'RA A'].some(isIsoAlpha3)).toBe(false);
  });
});
