import { describe, expect, it } from 'vitest';
import { clabeBankCode, computeClabeCheckDigit, validateClabe } from './clabe';

// An independent formulation of the check digit (sum the full products, reduce once at the end), used to
// build valid CLABEs for banks and accounts that have no published example.
function withCheckDigit(first17: string): string {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7];
  const sum = [...first17].reduce((total, digit, i) => total + Number(digit) * (weights[i] ?? Number.NaN), 0);
  return first17 + String((10 - (sum % 10)) % 10);
}

// Widely published valid examples: Banamex (002) and the IXE (032) example of the Spanish Wikipedia article.
const PUBLISHED = ['002010077777777771', '032180000118359719'];

describe('validateClabe', () => {
  it.each(PUBLISHED)('accepts the published CLABE %s and returns its bank code', (clabe) => {
    expect(validateClabe(clabe)).toEqual({ ok: true, value: clabe, bankCode: clabe.slice(0, 3) });
    expect(withCheckDigit(clabe.slice(0, 17))).toBe(clabe);
  });

  it('accepts the grouping CLABEs are printed with', () => {
    expect(validateClabe('032 180 00011835971 9')).toEqual({
      ok: true,
      value: '032180000118359719',
      bankCode: '032',
    });
    expect(validateClabe(' 002-010-07777777777-1 ')).toMatchObject({ ok: true, value: '002010077777777771' });
  });

  it('accepts any bank code, including banks admitted after 2017 such as Spin by OXXO (728) and Mercado Pago (722)', () => {
    for (const first17 of ['72818000000123456', '72218000123456789', '64618000000000001', '63818012345678901']) {
      const clabe = withCheckDigit(first17);
      expect(validateClabe(clabe)).toEqual({ ok: true, value: clabe, bankCode: first17.slice(0, 3) });
    }
  });

  it.each(PUBLISHED)('rejects %s with any other check digit', (clabe) => {
    for (let digit = 0; digit <= 9; digit += 1) {
      if (String(digit) === clabe[17]) continue;
      expect(validateClabe(clabe.slice(0, 17) + String(digit))).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGIT' });
    }
  });

  it('detects any single mistyped digit, since every weight is coprime with 10', () => {
    const [clabe = ''] = PUBLISHED;
    for (let position = 0; position < 17; position += 1) {
      for (let digit = 0; digit <= 9; digit += 1) {
        if (String(digit) === clabe[position]) continue;
        const typo = clabe.slice(0, position) + String(digit) + clabe.slice(position + 1);
        expect(validateClabe(typo)).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGIT' });
      }
    }
  });

  it('rejects wrong lengths', () => {
    expect(validateClabe('03218000011835971')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateClabe('0321800001183597190')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateClabe('')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });

  it('rejects letters and other characters', () => {
    expect(validateClabe('03218000011835971A')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateClabe('032.180.00011835971.9')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateClabe('０３２180000118359719')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
  });
});

describe('computeClabeCheckDigit', () => {
  it('matches the independent formulation on many account numbers', () => {
    // A linear congruential sequence, to cover all 17 positions with varied digits.
    let state = 12345n;
    for (let i = 0; i < 1000; i += 1) {
      state = (state * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      const first17 = state.toString().padStart(20, '0').slice(-17);
      expect(String(computeClabeCheckDigit(first17))).toBe(withCheckDigit(first17).slice(17));
    }
  });

  it('refuses input that is not exactly 17 digits', () => {
    expect(() => computeClabeCheckDigit('0321800001183597')).toThrow(RangeError);
    expect(() => computeClabeCheckDigit('032180000118359719')).toThrow(RangeError);
    expect(() => computeClabeCheckDigit('0321800001183597A')).toThrow(RangeError);
  });
});

describe('clabeBankCode', () => {
  it('returns the first three digits of a valid CLABE and null otherwise', () => {
    expect(clabeBankCode('002010077777777771')).toBe('002');
    expect(clabeBankCode('032 180 00011835971 9')).toBe('032');
    expect(clabeBankCode('002010077777777772')).toBeNull();
    expect(clabeBankCode('12345')).toBeNull();
  });
});
