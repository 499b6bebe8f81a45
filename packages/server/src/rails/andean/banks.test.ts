import { describe, expect, it } from 'vitest';
import { BANK_CODES, CL_BANK_CODES, CL_STATE_BANK_CODE, CO_BANK_CODES, PE_BANK_CODES, PE_BCP_BANK_CODE, isAllowedBankCode } from './banks';
import { ANDEAN_COUNTRY_CURRENCY, ANDEAN_CURRENCIES, isAndeanCountry, isAndeanCurrency } from './countries';

// The lists exactly as the payout interface document prints them, kept here as a second transcription
// so that a slip in either copy fails the test.
const SPEC = {
  CO: '1000, 1001, 1002, 1005, 1006, 1007, 1009, 1012, 1013, 1019, 1022, 1023, 1031, 1032, 1040, 1042, 1047, 1051, 1052, 1053, 1058, 1059, 1060, 1061, 1062, 1063, 1065, 1066, 1067, 1069, 1070, 1071, 1077, 1080, 1081, 1083, 1084, 1086, 1088, 1089, 1097, 1108, 1121, 1283, 1286, 1289, 1291, 1292, 1303, 1370, 1507, 1513, 1550, 1551, 1558, 1560, 1637, 1683, 1684, 1685, 1801, 1802, 1803, 1804, 1805, 1808, 1809, 1811, 1812, 1814, 1815, 1816, 1819.',
  PE: '001, 002, 003, 007, 009, 011, 018, 023, 035, 038, 043, 049, 053, 054, 055, 056, 057, 058, 059, 060, 062, 063, 073, 091, 093, 094, 096, 099, 256, 776, 800, 801, 802, 803, 805, 806, 808, 809, 811, 813, 849, 901, 902, 904, 910, 921, 922.',
  CL: '001, 008, 009, 010, 011, 012, 014, 016, 017, 018, 027, 028, 029, 031, 032, 033, 034, 036, 037, 038, 039, 040, 041, 042, 043, 045, 046, 049, 051, 052, 053, 054, 055, 056, 057, 059, 301, 302, 329, 504, 507, 672, 716, 731, 733, 734.',
} as const;

function specCodes(line: string): string[] {
  return line.replace(/\.$/, '').split(', ');
}

describe('bank codes', () => {
  it.each([
    ['CO', CO_BANK_CODES, 73],
    ['PE', PE_BANK_CODES, 47],
    ['CL', CL_BANK_CODES, 46],
  ] as const)('%s has exactly the codes of the interface document', (country, codes, count) => {
    const expected = specCodes(SPEC[country]);
    expect(new Set(expected).size).toBe(expected.length);
    expect([...codes]).toEqual(expected);
    expect(codes.size).toBe(count);
    expect(BANK_CODES[country]).toBe(codes);
  });

  it('names the special banks the rules refer to', () => {
    expect(PE_BANK_CODES.has(PE_BCP_BANK_CODE)).toBe(true);
    expect(CL_BANK_CODES.has(CL_STATE_BANK_CODE)).toBe(true);
    expect(CL_STATE_BANK_CODE).toBe('012');
  });

  it('matches codes exactly, leading zeros included', () => {
    expect(isAllowedBankCode('PE', '002')).toBe(true);
    expect(isAllowedBankCode('PE', '2')).toBe(false);
    expect(isAllowedBankCode('PE', ' 002')).toBe(false);
    expect(isAllowedBankCode('CL', '1007')).toBe(false);
    expect(isAllowedBankCode('CO', '1007')).toBe(true);
  });
});

describe('countries', () => {
  it('pays each country in its own currency', () => {
    expect(ANDEAN_COUNTRY_CURRENCY).toEqual({ CO: 'COP', PE: 'PEN', CL: 'CLP' });
    expect(ANDEAN_CURRENCIES).toEqual(['COP', 'PEN', 'CLP']);
  });

  it('matches codes exactly', () => {
    expect(isAndeanCountry('PE')).toBe(true);
    expect(isAndeanCountry('pe')).toBe(false);
    expect(isAndeanCountry('BR')).toBe(false);
    expect(isAndeanCurrency('CLP')).toBe(true);
    expect(isAndeanCurrency('clp')).toBe(false);
    expect(isAndeanCurrency('USD')).toBe(false);
  });
});
