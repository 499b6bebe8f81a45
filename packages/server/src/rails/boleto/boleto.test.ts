import { describe, it, expect } from 'vitest';
import {
  BoletoError,
  SANDBOX_BANK_CODE,
  barcodeToDigitableLine,
  buildBarcode,
  buildSandboxBoleto,
  buildSandboxFreeField,
  digitableLineToBarcode,
  dueDateFactor,
  dueDateFromFactor,
  formatDigitableLine,
  generalCheckDigit,
  isValidBarcode,
  isValidDigitableLine,
  mod10CheckDigit,
  parseBoleto,
  readSandboxFreeField,
  validateDigitableLine,
} from './boleto';

interface PublishedExample {
  source: string;
  line: string;
  barcode: string;
  bankCode: string;
  amountCents: bigint;
  factor: string;
  dueDate: string;
  freeField: string;
}

const EXAMPLES: PublishedExample[] = [
  {
    // The classic Banco do Brasil example, reproduced widely from BB's boleto specification ("Especificações
    // Técnicas para Confecção de Boleto de Cobrança"): R$ 1,00 due 31/12/2007, 6-digit agreement 050094.
    source: 'Banco do Brasil specification',
    line: '00190.50095 40144.816069 06809.350314 3 37370000000100',
    barcode: '00193373700000001000500940144816060680935031',
    bankCode: '001',
    amountCents: 100n,
    factor: '3737',
    dueDate: '2007-12-31',
    freeField: '0500940144816060680935031',
  },
  {
    // Stark Bank's public API documentation (boleto payment "line" and "barCode" example), an Itaú (341)
    // boleto of R$ 0,62. The documentation gives no due date; 2020-03-16 is 8196 days after 1997-10-07,
    // counted by hand (1997-10-07 + 3652 = 2007-10-07, + 4383 = 2019-10-07, + 161 = 2020-03-16).
    source: 'Stark Bank API documentation',
    line: '34191.09008 63571.277308 71444.640008 5 81960000000062',
    barcode: '34195819600000000621090063571277307144464000',
    bankCode: '341',
    amountCents: 62n,
    factor: '8196',
    dueDate: '2020-03-16',
    freeField: '1090063571277307144464000',
  },
  {
    // A CAIXA (104) boleto of R$ 355,00 due 05/02/2011 used as a fixture by the open-source pyboleto test suite.
    source: 'pyboleto CAIXA fixture',
    line: '10498.01952 25086.156509 00000.004143 7 48690000035500',
    barcode: '10497486900000355008019525086156500000000414',
    bankCode: '104',
    amountCents: 35500n,
    factor: '4869',
    dueDate: '2011-02-05',
    freeField: '8019525086156500000000414',
  },
];

const digitsOf = (line: string) => line.replace(/[ .]/g, '');

describe('published examples', () => {
  it.each(EXAMPLES)('$source: builds the barcode from its parts', (ex) => {
    expect(
      buildBarcode({ bankCode: ex.bankCode, dueDate: ex.dueDate, amountCents: ex.amountCents, freeField: ex.freeField }),
    ).toBe(ex.barcode);
  });

  it.each(EXAMPLES)('$source: converts barcode to line and back, digit for digit', (ex) => {
    expect(barcodeToDigitableLine(ex.barcode)).toBe(digitsOf(ex.line));
    expect(formatDigitableLine(barcodeToDigitableLine(ex.barcode))).toBe(ex.line);
    expect(digitableLineToBarcode(ex.line)).toBe(ex.barcode);
    expect(digitableLineToBarcode(digitsOf(ex.line))).toBe(ex.barcode);
  });

  it.each(EXAMPLES)('$source: parses due date, amount and free field', (ex) => {
    for (const input of [ex.line, ex.barcode]) {
      const parsed = parseBoleto(input, ex.dueDate);
      expect(parsed).toMatchObject({
        barcode: ex.barcode,
        digitableLine: digitsOf(ex.line),
        bankCode: ex.bankCode,
        currencyCode: '9',
        dueDateFactor: ex.factor,
        dueDate: ex.dueDate,
        amountCents: ex.amountCents,
        freeField: ex.freeField,
      });
    }
    expect(dueDateFactor(ex.dueDate)).toBe(ex.factor);
  });

  it.each(EXAMPLES)('$source: every check digit matches', (ex) => {
    const d = digitsOf(ex.line);
    expect(mod10CheckDigit(d.slice(0, 9))).toBe(Number(d[9]));
    expect(mod10CheckDigit(d.slice(10, 20))).toBe(Number(d[20]));
    expect(mod10CheckDigit(d.slice(21, 31))).toBe(Number(d[31]));
    expect(generalCheckDigit(ex.barcode.slice(0, 4) + ex.barcode.slice(5))).toBe(Number(ex.barcode[4]));
    expect(validateDigitableLine(ex.line)).toEqual({ valid: true, barcode: ex.barcode });
  });

  it.each(EXAMPLES)('$source: changing any single digit of the line breaks validation', (ex) => {
    const d = digitsOf(ex.line);
    for (let i = 0; i < d.length; i += 1) {
      for (let digit = 0; digit <= 9; digit += 1) {
        if (String(digit) === d[i]) continue;
        const changed = d.slice(0, i) + String(digit) + d.slice(i + 1);
        expect(isValidDigitableLine(changed), `position ${i + 1} set to ${digit}`).toBe(false);
      }
    }
  });

  it.each(EXAMPLES)('$source: changing any single digit of the barcode breaks validation', (ex) => {
    for (let i = 0; i < ex.barcode.length; i += 1) {
      for (let digit = 0; digit <= 9; digit += 1) {
        if (String(digit) === ex.barcode[i]) continue;
        const changed = ex.barcode.slice(0, i) + String(digit) + ex.barcode.slice(i + 1);
        expect(isValidBarcode(changed), `position ${i + 1} set to ${digit}`).toBe(false);
      }
    }
  });

  it('does not always notice two fields swapped (a property of the scheme, not a guarantee to rely on)', () => {
    // Each of fields 2 and 3 carries its own module-10 digit, so a swap leaves both valid, and only the
    // module-11 digit can notice; for this example the swapped barcode happens to have the same one (a 1 in 11
    // chance), so the swapped line passes every check.
    const [f1, f2, f3, f4, f5] = EXAMPLES[0]?.line.split(' ') ?? [];
    expect(isValidDigitableLine([f1, f3, f2, f4, f5].join(' '))).toBe(true);
    expect(digitableLineToBarcode([f1, f3, f2, f4, f5].join(' '))).not.toBe(EXAMPLES[0]?.barcode);
  });
});

describe('dueDateFactor', () => {
  // FEBRABAN's "Manual Operacional do Fator de Vencimento" (2012) table, plus two more published pairs.
  const published: Array<[string, string]> = [
    ['2000-07-03', '1000'],
    ['2000-07-04', '1001'],
    ['2000-07-05', '1002'],
    ['2002-05-01', '1667'],
    ['2010-11-17', '4789'],
    ['2012-04-27', '5316'],
    ['2025-02-20', '9998'],
    ['2025-02-21', '9999'],
  ];
  it.each(published)('%s has factor %s', (date, factor) => {
    expect(dueDateFactor(date)).toBe(factor);
  });

  it('restarts at 1000 on 2025-02-22', () => {
    expect(dueDateFactor('2025-02-21')).toBe('9999');
    expect(dueDateFactor('2025-02-22')).toBe('1000');
    expect(dueDateFactor('2025-02-23')).toBe('1001');
  });

  it('counts on from the restart through 2026', () => {
    // By hand: 2025-02-22 is 1000; 2025-12-31 is 6 + 31 + 30 + 31 + 30 + 31 + 31 + 30 + 31 + 30 + 31 = 312
    // days later (1312); 2026-01-01 is 1313; 2026-12-31 is 365 days after 2025-12-31 (1677).
    expect(dueDateFactor('2025-12-31')).toBe('1312');
    expect(dueDateFactor('2026-01-01')).toBe('1313');
    expect(dueDateFactor('2026-12-31')).toBe('1677');
  });

  it('restarts again after the next 9000 days, in October 2049', () => {
    // By hand: 2025-02-22 + 8999 days = 2049-02-22 (8766 days, six leap days) + 233 days = 2049-10-13.
    expect(dueDateFactor('2049-10-13')).toBe('9999');
    expect(dueDateFactor('2049-10-14')).toBe('1000');
  });

  it('has no factor before 2000-07-03', () => {
    expect(() => dueDateFactor('2000-07-02')).toThrow(BoletoError);
    expect(() => dueDateFactor('1997-10-07')).toThrow(BoletoError);
  });

  it('rejects impossible dates', () => {
    expect(() => dueDateFactor('2025-02-29')).toThrow(RangeError);
  });
});

describe('dueDateFromFactor', () => {
  it('reads each factor in the cycle nearest to the reference date', () => {
    expect(dueDateFromFactor('1000', '2025-06-01')).toBe('2025-02-22');
    expect(dueDateFromFactor('1000', '2001-01-01')).toBe('2000-07-03');
    expect(dueDateFromFactor('9999', '2025-01-15')).toBe('2025-02-21');
    expect(dueDateFromFactor('9999', '2025-03-01')).toBe('2025-02-21'); // overdue by a week, not 24 years ahead
    expect(dueDateFromFactor('1677', '2026-06-01')).toBe('2026-12-31');
    expect(dueDateFromFactor('3737', '2007-01-01')).toBe('2007-12-31');
    // By hand, 2007-12-31 + 9000 days: + 8766 (24 years, six leap days) = 2031-12-31, + 234 = 2032-08-21.
    expect(dueDateFromFactor('3737', '2030-01-01')).toBe('2032-08-21');
    expect(dueDateFromFactor('0000', '2025-06-01')).toBeNull();
  });

  it('inverts dueDateFactor for every day from 2000 to 2060 seen from a year before', () => {
    for (let date = '2000-07-03'; date < '2060-01-01'; date = nextDay(date)) {
      const reference = `${Number(date.slice(0, 4)) - 1}${date.slice(4)}`.replace('-02-29', '-02-28');
      expect(dueDateFromFactor(dueDateFactor(date), reference)).toBe(date);
    }
  });

  it('rejects factors outside 0000 and 1000-9999', () => {
    expect(() => dueDateFromFactor('0999', '2025-01-01')).toThrow(BoletoError);
    expect(() => dueDateFromFactor('12345', '2025-01-01')).toThrow(BoletoError);
    expect(() => dueDateFromFactor('12a4', '2025-01-01')).toThrow(BoletoError);
  });
});

describe('check digits', () => {
  it('computes module 10 with the digits of each product added', () => {
    // 9 with weight 2 gives 18, which counts as 1 + 8 = 9: (10 - 9) % 10 = 1.
    expect(mod10CheckDigit('9')).toBe(1);
    expect(mod10CheckDigit('0')).toBe(0);
    expect(mod10CheckDigit('5')).toBe(9); // 10 -> 1 + 0 = 1 -> 9
    expect(mod10CheckDigit('18')).toBe(2); // 8*2 = 16 -> 7, 1*1 = 1: 8 -> 2
  });

  it('maps module-11 results 0, 10 and 11 to 1', () => {
    // 43 zeros sum to 0: 11 - 0 = 11, which becomes 1.
    expect(generalCheckDigit('0'.repeat(43))).toBe(1);
    // A last digit of 5 weighs 2: sum 10, 11 - 10 = 1 (kept as 1).
    expect(generalCheckDigit(`${'0'.repeat(42)}5`)).toBe(1);
    // A last digit of 1 weighs 2: sum 2, 11 - 2 = 9.
    expect(generalCheckDigit(`${'0'.repeat(42)}1`)).toBe(9);
    // Sum 12 (6 x 2) leaves remainder 1: 11 - 1 = 10, which becomes 1.
    expect(generalCheckDigit(`${'0'.repeat(42)}6`)).toBe(1);
    // The ninth digit from the right weighs 2 again (weights cycle 2..9).
    expect(generalCheckDigit(`${'0'.repeat(34)}1${'0'.repeat(8)}`)).toBe(9);
  });

  it('lets some single-digit errors through when the general check digit is 1 (a property of the scheme)', () => {
    // Remainders 0, 1 and 10 all give check digit 1, so a change that moves the remainder among them goes
    // unnoticed. In fields 1 to 3 the module-10 digits still catch it; in field 5 nothing else can.
    let found: string | undefined;
    for (let sequence = 0; sequence < 200 && !found; sequence += 1) {
      const { barcode } = buildSandboxBoleto({ agreement: '1234567', sequence, dueDate: '2026-03-10', amountCents: 15990 });
      if (barcode[4] !== '1') continue;
      const line = barcodeToDigitableLine(barcode);
      for (let i = 33; i < 47 && !found; i += 1) {
        for (let digit = 0; digit <= 9; digit += 1) {
          const changed = line.slice(0, i) + String(digit) + line.slice(i + 1);
          if (changed !== line && isValidDigitableLine(changed)) found = changed;
        }
      }
    }
    expect(found).toBeDefined();
  });
});

describe('buildBarcode', () => {
  it('writes factor 0000 for a boleto without due date', () => {
    const barcode = buildBarcode({ bankCode: '001', dueDate: null, amountCents: 0, freeField: '0'.repeat(25) });
    expect(barcode.slice(5, 19)).toBe('00000000000000');
    expect(isValidBarcode(barcode)).toBe(true);
    expect(parseBoleto(barcode, '2025-01-01')).toMatchObject({ dueDate: null, amountCents: 0n });
  });

  it('takes the largest ten-digit amount and refuses more', () => {
    const base = { bankCode: '237', dueDate: '2026-05-05', freeField: '1'.repeat(25) };
    const barcode = buildBarcode({ ...base, amountCents: 9_999_999_999n });
    expect(barcode.slice(9, 19)).toBe('9999999999');
    expect(() => buildBarcode({ ...base, amountCents: 10_000_000_000n })).toThrow(BoletoError);
    expect(() => buildBarcode({ ...base, amountCents: -1 })).toThrow(BoletoError);
    expect(() => buildBarcode({ ...base, amountCents: 10.5 })).toThrow(BoletoError);
  });

  it('accepts cents as a safe integer number or a bigint alike', () => {
    const base = { bankCode: '033', dueDate: '2026-05-05', freeField: '9'.repeat(25) };
    expect(buildBarcode({ ...base, amountCents: 123456 })).toBe(buildBarcode({ ...base, amountCents: 123456n }));
  });

  it('refuses malformed parts', () => {
    const base = { bankCode: '001', dueDate: '2026-05-05', amountCents: 1n, freeField: '0'.repeat(25) };
    expect(() => buildBarcode({ ...base, bankCode: '01' })).toThrow(BoletoError);
    expect(() => buildBarcode({ ...base, freeField: '0'.repeat(24) })).toThrow(BoletoError);
    expect(() => buildBarcode({ ...base, freeField: `${'0'.repeat(24)}x` })).toThrow(BoletoError);
    expect(() => buildBarcode({ ...base, dueDate: '1999-01-01' })).toThrow(BoletoError);
  });
});

describe('digitable lines', () => {
  it('round-trips many generated barcodes', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let i = 0; i < 500; i += 1) {
      const freeField = Array.from({ length: 25 }, () => String(next(10))).join('');
      const barcode = buildBarcode({
        bankCode: String(next(1000)).padStart(3, '0'),
        dueDate: next(10) === 0 ? null : addDaysIso('2025-02-22', next(3000)),
        amountCents: BigInt(next(2_000_000_000)) * 5n,
        freeField,
      });
      const line = barcodeToDigitableLine(barcode);
      expect(line).toHaveLength(47);
      expect(digitableLineToBarcode(formatDigitableLine(line))).toBe(barcode);
      expect(isValidDigitableLine(line)).toBe(true);
    }
  });

  it('reports each wrong field', () => {
    const good = digitsOf(EXAMPLES[0]?.line ?? '');
    const bump = (s: string, i: number) => s.slice(0, i) + String((Number(s[i]) + 1) % 10) + s.slice(i + 1);
    expect(validateDigitableLine(bump(good, 9))).toEqual({ valid: false, errors: ['Wrong check digit in field 1'] });
    expect(validateDigitableLine(bump(good, 20))).toEqual({ valid: false, errors: ['Wrong check digit in field 2'] });
    expect(validateDigitableLine(bump(good, 31))).toEqual({ valid: false, errors: ['Wrong check digit in field 3'] });
    expect(validateDigitableLine(bump(good, 32))).toEqual({
      valid: false,
      errors: ['Wrong general check digit (field 4)'],
    });
  });

  it('refuses anything but 47 digits with dots and spaces', () => {
    expect(isValidDigitableLine('')).toBe(false);
    expect(isValidDigitableLine(digitsOf(EXAMPLES[0]?.line ?? '').slice(1))).toBe(false);
    expect(isValidDigitableLine((EXAMPLES[0]?.line ?? '').replace('3 3737', '3-3737'))).toBe(false);
    expect(isValidDigitableLine((EXAMPLES[0]?.line ?? '').replace('0', 'O'))).toBe(false);
    // A 48-digit utility ("arrecadação") line is a different format.
    expect(isValidDigitableLine('846700000017435900240209024050002435842210108119')).toBe(false);
    expect(() => digitableLineToBarcode('123')).toThrow(BoletoError);
    expect(() => formatDigitableLine('123')).toThrow(BoletoError);
    expect(() => barcodeToDigitableLine('00193373700000001000500940144816060680935032')).toThrow(BoletoError);
  });

  it('accepts the line with line breaks or extra spaces, as pasted from a PDF', () => {
    expect(digitableLineToBarcode(`  ${(EXAMPLES[0]?.line ?? '').replace(' ', '\n')}  `)).toBe(EXAMPLES[0]?.barcode);
  });

  it('refuses a barcode whose factor is not in use', () => {
    const barcode = buildBarcode({ bankCode: '001', dueDate: null, amountCents: 0, freeField: '0'.repeat(25) });
    const withFactor = (factor: string) => {
      const body = barcode.slice(0, 4) + factor + barcode.slice(9);
      return body.slice(0, 4) + String(generalCheckDigit(body)) + body.slice(4);
    };
    expect(() => parseBoleto(withFactor('0999'), '2025-01-01')).toThrow(BoletoError);
    expect(parseBoleto(withFactor('1000'), '2025-03-01').dueDate).toBe('2025-02-22');
  });
});

describe('sandbox bank', () => {
  it('lays out agreement, sequence and portfolio in 25 digits and reads them back', () => {
    const { freeField, nossoNumero } = buildSandboxFreeField({ agreement: '1234567', sequence: 42n });
    expect(freeField).toBe('0000001234567000000004217');
    expect(freeField).toHaveLength(25);
    expect(nossoNumero).toBe('12345670000000042');
    expect(readSandboxFreeField(freeField)).toEqual({
      agreement: '1234567',
      sequence: 42n,
      portfolio: '17',
      nossoNumero,
    });
    expect(readSandboxFreeField(EXAMPLES[0]?.freeField ?? '')).toBeNull();
  });

  it('builds complete boletos that parse back to their inputs', () => {
    const boleto = buildSandboxBoleto({
      agreement: '7654321',
      sequence: 9_999_999_999n,
      portfolio: '18',
      dueDate: '2026-03-10',
      amountCents: 15990n,
    });
    expect(boleto.barcode.startsWith(`${SANDBOX_BANK_CODE}9`)).toBe(true);
    expect(boleto.formattedDigitableLine).toMatch(/^\d{5}\.\d{5} \d{5}\.\d{6} \d{5}\.\d{6} \d \d{14}$/);
    const parsed = parseBoleto(boleto.formattedDigitableLine, '2026-03-01');
    expect(parsed).toMatchObject({ bankCode: '001', dueDate: '2026-03-10', amountCents: 15990n });
    expect(readSandboxFreeField(parsed.freeField)?.nossoNumero).toBe(boleto.nossoNumero);
  });

  it('refuses malformed sandbox inputs', () => {
    expect(() => buildSandboxFreeField({ agreement: '123456', sequence: 1 })).toThrow(BoletoError);
    expect(() => buildSandboxFreeField({ agreement: '1234567', sequence: 10_000_000_000n })).toThrow(BoletoError);
    expect(() => buildSandboxFreeField({ agreement: '1234567', sequence: 1, portfolio: '1' })).toThrow(BoletoError);
  });
});

function nextDay(date: string): string {
  return addDaysIso(date, 1);
}

function addDaysIso(date: string, days: number): string {
  const ms = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return new Date(ms + days * 86_400_000).toISOString().slice(0, 10);
}
