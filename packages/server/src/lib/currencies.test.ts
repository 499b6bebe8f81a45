import { describe, expect, it } from 'vitest';
import { CURRENCIES, CURRENCY_EXPONENTS, exponentOf, isCurrency } from './currencies';

describe('currencies', () => {
  it('take their exponents from the ISO 4217 list', () => {
    expect(CURRENCY_EXPONENTS).toEqual({ BRL: 2, USD: 2, EUR: 2, MXN: 2, ARS: 2, COP: 2, PEN: 2, CLP: 0 });
    expect(Object.keys(CURRENCY_EXPONENTS)).toEqual([...CURRENCIES]);
  });

  it('know their own codes only, in upper case, and read any other stored code with two decimals', () => {
    expect(isCurrency('CLP')).toBe(true);
    expect(isCurrency('clp')).toBe(false);
    expect(isCurrency('JPY')).toBe(false);
    expect(exponentOf('CLP')).toBe(0);
    expect(exponentOf('XYZ')).toBe(2);
  });
});
