import { describe, expect, it } from 'vitest';
import { cashVoucherReference, isValidCashVoucherReference, luhnCheckDigit, renderCashVoucherBarcodeSvg } from './cash-voucher';
import { validateClabe } from './clabe';
import { speiReceivingClabe } from './spei';

describe('cash voucher references', () => {
  it('computes Luhn digits of published examples', () => {
    // 7992739871 → 3 is the usual worked example of the Luhn algorithm.
    expect(luhnCheckDigit('7992739871')).toBe(3);
    expect(luhnCheckDigit('4111111111111111'.slice(0, 15))).toBe(1);
  });

  it('builds 14-digit references per network that validate, and refuses any changed digit', () => {
    const oxxo = cashVoucherReference('OXXO', 1n);
    const paynet = cashVoucherReference('PAYNET', 12_345_678_901n);
    expect(oxxo).toBe('93000000000016');
    expect(paynet).toMatch(/^9412345678901\d$/);
    for (const reference of [oxxo, paynet]) {
      expect(isValidCashVoucherReference(reference)).toBe(true);
      for (let i = 0; i < 14; i += 1) {
        const changed = reference.slice(0, i) + String((Number(reference[i]) + 1) % 10) + reference.slice(i + 1);
        expect(isValidCashVoucherReference(changed), changed).toBe(false);
      }
    }
    expect(() => cashVoucherReference('OXXO', 0n)).toThrow(RangeError);
    expect(() => cashVoucherReference('OXXO', 10n ** 11n)).toThrow(RangeError);
  });

  it('draws the reference as a Code 128 SVG and refuses to draw a broken one', () => {
    expect(renderCashVoucherBarcodeSvg('93000000000016')).toMatch(/^<svg/);
    expect(() => renderCashVoucherBarcodeSvg('93000000000017')).toThrow(RangeError);
  });
});

describe('SPEI receiving CLABE', () => {
  it('is a valid CLABE of the sandbox bank, one per sequence', () => {
    const first = speiReceivingClabe(1n);
    expect(first).toBe('646180000000000012');
    expect(validateClabe(first)).toEqual({ ok: true, value: first, bankCode: '646' });
    expect(validateClabe(speiReceivingClabe(98_765_432_109n)).ok).toBe(true);
    expect(() => speiReceivingClabe(0n)).toThrow(RangeError);
  });
});
