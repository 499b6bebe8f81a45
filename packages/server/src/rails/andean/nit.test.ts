import { describe, expect, it } from 'vitest';
import { checkNit, isValidNit } from './nit';

// The DIAN check digit written out independently of stdnum, as a test oracle: weights 3, 7, 13, 17,
// 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71 from the rightmost digit; the sum modulo 11 is the digit
// when it is 0 or 1, and 11 minus it otherwise.
function dianCheckDigit(base: string): string {
  const weights = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
  let sum = 0;
  for (let i = 0; i < base.length; i += 1) sum += Number(base[base.length - 1 - i]) * (weights[i] ?? 0);
  const remainder = sum % 11;
  return String(remainder < 2 ? remainder : 11 - remainder);
}

describe('checkNit', () => {
  // NITs that Colombian institutions publish, written 800.197.268-4 and sent here without separators.
  it.each([
    ['8001972684', 'DIAN'],
    ['8909039388', 'Bancolombia'],
    ['8999990681', 'Ecopetrol'],
    ['9005444722', 'stdnum test vector'],
  ])('accepts the published NIT %s (%s)', (nit) => {
    expect(checkNit(nit)).toEqual({ ok: true });
  });

  it.each([
    ['8001972685', 'CHECK_DIGIT'],
    ['8909039387', 'CHECK_DIGIT'],
    ['800197268-4', 'FORMAT'],
    ['800.197.268-4', 'FORMAT'],
    ['80019726', 'FORMAT'],
    ['80019726841', 'FORMAT'],
    ['', 'FORMAT'],
  ])('refuses %s with %s', (nit, reason) => {
    expect(checkNit(nit)).toEqual({ ok: false, reason });
  });

  it('agrees with the DIAN formula on 8- and 9-digit bases', () => {
    let seed = 4242;
    for (let i = 0; i < 2000; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const base = String(10_000_000 + (seed % 990_000_000));
      const digit = dianCheckDigit(base);
      expect(isValidNit(base + digit)).toBe(true);
      expect(isValidNit(base + String((Number(digit) + 1) % 10))).toBe(false);
    }
  });
});
