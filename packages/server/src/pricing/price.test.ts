import { describe, expect, it } from 'vitest';
import { amountFailure, minimumMinor, readAmount, readPrice, type PriceWording } from './price';

const WORDING: PriceWording = { amountField: 'payment.amount', assetField: 'payment.asset', format: 'a decimal number such as "10.50"', largest: 'the maximum payment' };

describe('readPrice', () => {
  it('reads the asset in any case and the amount in minor units of its currency', () => {
    expect(readPrice('10.5', 'usd', WORDING)).toEqual({ currency: 'USD', amount: { ok: true, minor: 1050n }, assetFailure: undefined, amountFailure: undefined });
    expect(readPrice(1500, 'CLP', WORDING).amount).toEqual({ ok: true, minor: 1500n });
  });

  it('refuses an unknown asset and still judges the amount, as of two decimals', () => {
    const price = readPrice('10.505', 'XYZ', WORDING);
    expect(price.currency).toBeUndefined();
    expect(price.assetFailure).toEqual({ key: 'CURRENCY_UNSUPPORTED', description: 'payment.asset: XYZ is not supported; use BRL or one of BRL, USD, EUR, MXN, ARS, COP, PEN, CLP.' });
    expect(price.amountFailure).toEqual({ key: 'AMOUNT_DECIMALS', description: 'payment.amount: Value must have a maximum of two decimal places.' });
  });

  it('allows at most two decimals, and none where the currency has none', () => {
    expect(readPrice('1.001', 'BRL', WORDING).amountFailure?.key).toBe('AMOUNT_DECIMALS');
    expect(readPrice('1500.5', 'CLP', WORDING).amountFailure?.key).toBe('AMOUNT_DECIMALS');
    expect(readPrice('1500.00', 'CLP', WORDING).amount).toEqual({ ok: true, minor: 1500n });
  });

  it('words the form and the bound as its caller names them', () => {
    expect(readPrice('1e3', 'BRL', WORDING).amountFailure).toEqual({ key: 'FIELD_FORMAT', description: 'payment.amount: must be a decimal number such as "10.50".' });
    expect(readPrice('10000000000000.01', 'BRL', WORDING).amountFailure).toEqual({ key: 'FIELD_OUT_OF_RANGE', description: 'payment.amount: is larger than the maximum payment.' });
  });
});

describe('readAmount and amountFailure', () => {
  it('checks the form and two decimals before the currency is known, then reads in its exponent', () => {
    expect(readAmount('12.5')).toEqual({ ok: true, minor: 1250n });
    expect(readAmount(12.5, 'BRL')).toEqual({ ok: true, minor: 1250n });
    expect(readAmount('12.5', 'CLP')).toEqual({ ok: false, reason: 'TOO_MANY_DECIMALS' });
    expect(readAmount('12', 'CLP')).toEqual({ ok: true, minor: 12n });
  });

  it('reports a too-large amount as malformed when the caller names no bound (capture, refunds)', () => {
    const wording = { amountField: 'amount', format: 'a positive decimal number' };
    expect(amountFailure('TOO_LARGE', wording)).toEqual({ key: 'FIELD_FORMAT', description: 'amount: must be a positive decimal number.' });
    expect(amountFailure('TOO_MANY_DECIMALS', wording)).toEqual({ key: 'AMOUNT_DECIMALS', description: 'amount: Value must have a maximum of two decimal places.' });
  });
});

describe('minimumMinor', () => {
  it('is one unit of the currency a price is charged in', () => {
    expect(minimumMinor('BRL')).toBe(100n);
    expect(minimumMinor('MXN')).toBe(100n);
    expect(minimumMinor('CLP')).toBe(1n);
  });
});
