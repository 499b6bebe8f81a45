import { describe, expect, it } from 'vitest';
import { applyPpm, formatAmount, MAX_AMOUNT_MINOR, parseAmount, readDecimal, toJsonNumber, toMinorUnits } from './money';

describe('money', () => {
  it.each([
    ['10', 2, 1000n],
    ['10.5', 2, 1050n],
    ['10.50', 2, 1050n],
    ['0.01', 2, 1n],
    ['10.500', 2, 1050n],
    ['1500', 0, 1500n],
  ])('parses %s with exponent %i', (input, exponent, minor) => {
    expect(parseAmount(input, exponent)).toEqual({ ok: true, minor });
  });

  it('reads JSON numbers through their shortest decimal form, so 0.1 + 0.2 style floats never leak in', () => {
    expect(parseAmount(0.1, 2)).toEqual({ ok: true, minor: 10n });
    expect(parseAmount(19.99, 2)).toEqual({ ok: true, minor: 1999n });
    expect(parseAmount(0.1 + 0.2, 2)).toEqual({ ok: false, reason: 'TOO_MANY_DECIMALS' });
  });

  it.each(['', '-1', '+1', '1e3', '1,00', '.5', '5.', 'abc', ' 1 2', '0x10'])('refuses %j', (input) => {
    expect(parseAmount(input, 2).ok).toBe(false);
  });

  it('refuses more decimals than allowed and amounts beyond the bound', () => {
    expect(parseAmount('1.001', 2)).toEqual({ ok: false, reason: 'TOO_MANY_DECIMALS' });
    expect(parseAmount('1.5', 0)).toEqual({ ok: false, reason: 'TOO_MANY_DECIMALS' });
    expect(parseAmount('10000000000000.01', 2)).toEqual({ ok: false, reason: 'TOO_LARGE' });
    expect(parseAmount(Number.NaN, 2).ok).toBe(false);
  });

  it('reads a plain decimal into its sign, whole digits and significant decimals', () => {
    expect(readDecimal('-1500.50')).toEqual({ negative: true, whole: '1500', fraction: '5' });
    expect(readDecimal('007.000')).toEqual({ negative: false, whole: '007', fraction: '' });
    for (const text of ['', '+1', '1e3', '1 ', '.5', '5.', '1,5', '--1']) expect(readDecimal(text), text).toBeUndefined();
  });

  it('converts to minor units within the bound, keeping the sign, and refuses more decimals than the exponent', () => {
    expect(toMinorUnits({ negative: false, whole: '10', fraction: '5' }, 2)).toBe(1050n);
    expect(toMinorUnits({ negative: true, whole: '1500', fraction: '' }, 0)).toBe(-1500n);
    expect(toMinorUnits({ negative: false, whole: '10000000000000', fraction: '' }, 2)).toBe(MAX_AMOUNT_MINOR);
    expect(toMinorUnits({ negative: false, whole: '10000000000000', fraction: '01' }, 2)).toBeUndefined();
    expect(toMinorUnits({ negative: false, whole: '00000000000000001', fraction: '' }, 2)).toBeUndefined();
    expect(() => toMinorUnits({ negative: false, whole: '1', fraction: '5' }, 0)).toThrow(RangeError);
  });

  it('formats minor units with the exponent', () => {
    expect(formatAmount(1050n, 2)).toBe('10.50');
    expect(formatAmount(5n, 2)).toBe('0.05');
    expect(formatAmount(-5n, 2)).toBe('-0.05');
    expect(formatAmount(1500n, 0)).toBe('1500');
    expect(toJsonNumber(1999n, 2)).toBe(19.99);
  });

  it('round-trips every cent value through format and parse', () => {
    for (let minor = 0n; minor < 3000n; minor += 7n) {
      expect(parseAmount(formatAmount(minor, 2), 2)).toEqual({ ok: true, minor });
    }
  });

  it('applies a parts-per-million rate with half-up rounding', () => {
    expect(applyPpm(1000n, 25_000n)).toBe(25n);
    expect(applyPpm(1n, 500_000n)).toBe(1n);
    expect(applyPpm(1n, 499_999n)).toBe(0n);
  });
});
