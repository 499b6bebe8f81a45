import { expect, it } from 'vitest';
import { fieldPath, findNulCharacter } from './validation';

it('writes Ajv paths in the spec field notation', () => {
  expect(fieldPath('/payoutTransactions/2/required_PE/account_number')).toBe('payoutTransactions[2].required_PE.account_number');
  expect(fieldPath('', 'amount')).toBe('amount');
  expect(fieldPath('/payment', 'amount')).toBe('payment.amount');
  expect(fieldPath('')).toBe('body');
  expect(fieldPath('/a~1b')).toBe('a/b');
});

it('finds NUL characters anywhere in a body', () => {
  expect(findNulCharacter({ a: [{ b: 'x\u0000' }] })).toBe('a[0].b');
  expect(findNulCharacter({ a: ['ok', 1, null, true] })).toBeNull();
  expect(findNulCharacter('\u0000')).toBe('body');
});
