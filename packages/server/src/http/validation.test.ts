import { expect, it } from 'vitest';
import { fieldPath, inspectInput } from './validation';

it('writes Ajv paths in the spec field notation', () => {
  expect(fieldPath('/payoutTransactions/2/required_PE/account_number')).toBe('payoutTransactions[2].required_PE.account_number');
  expect(fieldPath('', 'amount')).toBe('amount');
  expect(fieldPath('/payment', 'amount')).toBe('payment.amount');
  expect(fieldPath('')).toBe('body');
  expect(fieldPath('/a~1b')).toBe('a/b');
});

it('finds NUL characters anywhere in a body, in values and in field names', () => {
  expect(inspectInput({ a: [{ b: 'x\u0000' }] })).toEqual({ key: 'FIELD_NUL_CHARACTER', description: 'a[0].b: must not contain NUL characters.' });
  expect(inspectInput({ a: ['ok', 1, null, true] })).toBeNull();
  expect(inspectInput('\u0000')?.description).toBe('body: must not contain NUL characters.');
  expect(inspectInput({ a: { 'k\u0000': 1 } })?.key).toBe('FIELD_NUL_CHARACTER');
});

it('refuses lone UTF-16 surrogates and accepts paired ones', () => {
  expect(inspectInput({ extra_data: { note: 'a\ud800' } })).toEqual({
    key: 'FIELD_LONE_SURROGATE',
    description: 'extra_data.note: must not contain a lone UTF-16 surrogate (it is not valid Unicode).',
  });
  expect(inspectInput({ x: '\udc00b' })?.key).toBe('FIELD_LONE_SURROGATE');
  expect(inspectInput({ x: '\ud83d\ude00 emoji' })).toBeNull();
  expect(inspectInput({ ['\ud800']: 1 })?.key).toBe('FIELD_LONE_SURROGATE');
});

it('bounds nesting without recursion, even 100,000 levels deep', () => {
  const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
  expect(inspectInput(deep, 32)?.key).toBe('BODY_TOO_DEEP');
  const objects = JSON.parse(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`) as unknown;
  expect(inspectInput(objects, 32)?.description).toBe(`${Array(32).fill('a').join('.')}: nests deeper than 32 levels.`);
  // Exactly the limit passes: 32 nested containers hold a scalar.
  expect(inspectInput(JSON.parse(`${'['.repeat(32)}1${']'.repeat(32)}`), 32)).toBeNull();
  expect(inspectInput(JSON.parse(`${'['.repeat(33)}1${']'.repeat(33)}`), 32)?.key).toBe('BODY_TOO_DEEP');
});

it('reports the first fault in document order', () => {
  expect(inspectInput({ a: 'fine', b: ['x\u0000'], c: '\ud800' })?.description).toBe('b[0]: must not contain NUL characters.');
});
