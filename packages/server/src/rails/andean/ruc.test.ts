import { stdnum } from 'stdnum';
import { describe, expect, it } from 'vitest';
import { checkRuc, isValidRuc } from './ruc';

// The SUNAT check digit written out independently of stdnum, as a test oracle: weights 5, 4, 3, 2, 7,
// 6, 5, 4, 3, 2; 11 minus the sum modulo 11; 10 becomes 0 and 11 becomes 1.
function sunatCheckDigit(first10: string): string {
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  let sum = 0;
  for (let i = 0; i < 10; i += 1) sum += Number(first10[i]) * (weights[i] ?? 0);
  const digit = 11 - (sum % 11);
  return String(digit === 10 ? 0 : digit === 11 ? 1 : digit);
}

describe('checkRuc', () => {
  // RUCs that Peruvian institutions print on their receipts and web sites.
  it.each([
    ['20131312955', 'SUNAT'],
    ['20100047218', 'Banco de Crédito del Perú'],
    ['20100053455', 'Interbank'],
    ['20100130204', 'BBVA Perú'],
    ['20512333797', 'stdnum test vector'],
  ])('accepts the published RUC %s (%s)', (ruc) => {
    expect(checkRuc(ruc)).toEqual({ ok: true });
  });

  it('accepts a natural person RUC (prefix 10)', () => {
    expect(isValidRuc('10456789124')).toBe(true);
  });

  it.each([
    ['20131312954', 'CHECK_DIGIT'],
    ['20100047219', 'CHECK_DIGIT'],
    ['2013131295', 'LENGTH'],
    ['201313129551', 'LENGTH'],
    ['20-13131295', 'FORMAT'],
    ['2013131295A', 'FORMAT'],
    ['30601234561', 'PREFIX'],
    ['16100047211', 'PREFIX'],
  ])('refuses %s with %s', (ruc, reason) => {
    expect(checkRuc(ruc)).toEqual({ ok: false, reason });
  });

  it('refuses prefix 16 although stdnum accepts it, because the payout interface does not list it', () => {
    expect(stdnum.PE?.ruc?.validate('16100047211').isValid).toBe(true);
    expect(checkRuc('16100047211')).toEqual({ ok: false, reason: 'PREFIX' });
  });

  it('agrees with the SUNAT formula, including the check digits 0 and 1', () => {
    const seen = new Set<string>();
    let seed = 77;
    for (let i = 0; i < 3000; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const first10 = `20${String(seed % 100_000_000).padStart(8, '0')}`;
      const digit = sunatCheckDigit(first10);
      seen.add(digit);
      expect(isValidRuc(first10 + digit)).toBe(true);
      expect(isValidRuc(first10 + String((Number(digit) + 1) % 10))).toBe(false);
    }
    expect(seen).toEqual(new Set(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']));
  });
});
