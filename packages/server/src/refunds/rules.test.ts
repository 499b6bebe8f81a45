import { expect, it } from 'vitest';
import { validateDestination } from './destination';
import { REFUND_RULES, refundDeadline } from './rules';

it('counts card windows in calendar months, clamping the day, and PIX windows in days', () => {
  expect(refundDeadline(REFUND_RULES.CREDITCARD!, new Date('2026-08-31T10:00:00.000Z'))?.toISOString()).toBe('2027-02-28T10:00:00.000Z');
  expect(refundDeadline(REFUND_RULES.CREDITCARD!, new Date('2027-08-31T10:00:00.000Z'))?.toISOString()).toBe('2028-02-29T10:00:00.000Z');
  expect(refundDeadline(REFUND_RULES.PIX!, new Date('2026-01-01T00:00:00.000Z'))?.toISOString()).toBe('2026-04-01T00:00:00.000Z');
  expect(refundDeadline(REFUND_RULES.BOLETO!, new Date())).toBeNull();
});

it('needs bank_code and a valid 18-digit CLABE of the same bank for OXXO, PAYNET and SPEI refunds', () => {
  const oxxo = REFUND_RULES.OXXO!;
  // 002 (Banamex) CLABE with a valid check digit computed by the weights 3, 7, 1.
  const clabe = '002010077777777771';
  expect(validateDestination(oxxo, {}).failures[0]?.key).toBe('CLABE_REQUIRED');
  expect(validateDestination(oxxo, { clabe }).failures[0]?.description).toMatch(/^bank_code: /);
  expect(validateDestination(oxxo, { bank_code: 2, clabe: '002010077777777772' }).failures[0]?.key).toBe('CLABE_INVALID');
  expect(validateDestination(oxxo, { bank_code: 12, clabe }).failures[0]?.description).toMatch(/does not match/);
  expect(validateDestination(oxxo, { bank_code: 2, clabe })).toEqual({ destination: { kind: 'CLABE', bank_code: '002', clabe }, failures: [] });
  expect(REFUND_RULES.SPEI?.destination).toBe('CLABE');
  expect(REFUND_RULES.PAYNET?.partial).toBe(false);
});
