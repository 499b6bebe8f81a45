import { describe, expect, it } from 'vitest';
import { cciCheckDigit, cciCheckDigits, checkCci, formatCci, isValidCci } from './cci';

/**
 * CCIs that Peruvian organisations publish for receiving payments, each printed next to the bank's own
 * account number. That number is visibly embedded in the CCI (`inAccount` ends the 12-digit account
 * part, and for most banks its first digits are the branch), which confirms the layout independently
 * of the check digits.
 */
const PUBLISHED = [
  { bank: 'BCP', account: '191-0215772014', cci: '00219100021577201451', branch: '191', inAccount: '0215772014' },
  { bank: 'BCP', account: '191-9036694-0-35', cci: '00219100903669403552', branch: '191', inAccount: '9036694035' },
  { bank: 'BCP', account: '215-00144900-80', cci: '00221500001449008020', branch: '215', inAccount: '0014490080' },
  { bank: 'Interbank', account: '200-3005845511', cci: '00320000300584551131', branch: '200', inAccount: '3005845511' },
  { bank: 'Interbank', account: '200-3008147025', cci: '00320000300814702531', branch: '200', inAccount: '3008147025' },
  { bank: 'Interbank', account: '200-3007723278', cci: '00320000300772327830', branch: '200', inAccount: '3007723278' },
  { bank: 'Interbank', account: '488-3001952266', cci: '00348800300195226640', branch: '488', inAccount: '3001952266' },
  { bank: 'BBVA', account: '0011-0152-0100100654', cci: '01115200010010065461', branch: '152', inAccount: '0100100654' },
  { bank: 'BBVA', account: '0011-0135-0201300201', cci: '01113500020130020115', branch: '135', inAccount: '0201300201' },
  { bank: 'BBVA', account: '0011-0220-0100000403-14', cci: '01122000010000040314', branch: '220', inAccount: '0100000403' },
  { bank: 'Scotiabank', account: '000-3756440', cci: '00942300000375644058', branch: '423', inAccount: '0003756440' },
  { bank: 'Banco de la Nación', account: '00-015-013982', cci: '01801500001501398282', branch: '015', inAccount: '00015013982' },
] as const;

describe('cciCheckDigit', () => {
  it.each([
    ['002191', '5'],
    ['000215772014', '1'],
    ['003200', '3'],
    ['003005845511', '1'],
    ['000000', '0'],
  ])('%s has check digit %s', (group, digit) => {
    expect(cciCheckDigit(group)).toBe(digit);
  });

  it('sums the digits of two-digit products (9 x 2 = 18 counts 9)', () => {
    // 0*1 + 9*2 -> 1 + 8 = 9, so the digit is 1.
    expect(cciCheckDigit('09')).toBe('1');
  });

  it('refuses non-digits', () => {
    expect(() => cciCheckDigit('00-2')).toThrow(RangeError);
    expect(() => cciCheckDigits('0021910002157720')).toThrow(RangeError);
  });
});

describe('checkCci', () => {
  it.each(PUBLISHED)('accepts the published $bank CCI $cci', ({ cci }) => {
    expect(isValidCci(cci)).toBe(true);
    expect(cciCheckDigits(cci.slice(0, 18))).toBe(cci.slice(18));
  });

  it.each(PUBLISHED)('finds the $bank account $account inside $cci', ({ cci, branch, inAccount }) => {
    const result = checkCci(cci);
    expect(result.ok && result.cci.branch).toBe(branch);
    expect(result.ok && result.cci.account.endsWith(inAccount)).toBe(true);
  });

  it('splits a CCI into its parts', () => {
    expect(checkCci('00219100021577201451')).toEqual({
      ok: true,
      cci: { bank: '002', branch: '191', account: '000215772014', checkDigits: '51' },
    });
  });

  it.each(PUBLISHED)('refuses $cci with its last check digit changed', ({ cci }) => {
    const changed = cci.slice(0, 19) + String((Number(cci[19]) + 1) % 10);
    expect(checkCci(changed)).toEqual({ ok: false, reason: 'CHECK_DIGITS' });
  });

  it.each(PUBLISHED)('refuses $cci with its first check digit changed', ({ cci }) => {
    const changed = cci.slice(0, 18) + String((Number(cci[18]) + 5) % 10) + cci.slice(19);
    expect(checkCci(changed)).toEqual({ ok: false, reason: 'CHECK_DIGITS' });
  });

  it('refuses a published CCI with two adjacent account digits swapped', () => {
    // 00320000300584551131 with "84" in the account part swapped to "48".
    expect(checkCci('00320000300548551131')).toEqual({ ok: false, reason: 'CHECK_DIGITS' });
    // 00219100021577201451 with the branch "191" written "119".
    expect(checkCci('00211900021577201451')).toEqual({ ok: false, reason: 'CHECK_DIGITS' });
  });

  it.each([
    '002-191-000215772014-51',
    '002 191 000215772014 51',
    '0021910002157720145',
    '002191000215772014511',
    '0021910002157720145A',
    '００２１９１０００２１５７７２０１４５１',
    '',
  ])('refuses %j as not 20 plain digits', (cci) => {
    expect(checkCci(cci)).toEqual({ ok: false, reason: 'FORMAT' });
  });
});

describe('formatCci', () => {
  it('groups a valid CCI as banks print it', () => {
    expect(formatCci('00219100021577201451')).toBe('002-191-000215772014-51');
  });

  it('refuses an invalid CCI', () => {
    expect(() => formatCci('00219100021577201452')).toThrow(RangeError);
  });
});
