import { describe, expect, it } from 'vitest';
import type { CardScheme } from './card-number';
import {
  cardBrands,
  cardNumberLengths,
  detectCardScheme,
  luhnCheck,
  maskCardNumber,
  parseCardNumber,
  validateCardNumber,
  validateExpiry,
} from './card-number';

// Builds a Luhn-valid number of `length` digits starting with `prefix` (zero-padded), independently of the
// module: the check digit is the one that brings the doubled-alternate sum to a multiple of 10.
function withLuhnDigit(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) {
    // Counting from the right of the final number, the body's last digit is in an even (doubled) position.
    const doubled = (body.length - i) % 2 === 1;
    const digit = Number(body[i]);
    sum += doubled ? [0, 2, 4, 6, 8, 1, 3, 5, 7, 9][digit] ?? Number.NaN : digit;
  }
  return body + String((10 - (sum % 10)) % 10);
}

/** The number with the digit at `position` replaced by the next one (9 wraps to 0). */
function withDigitChanged(number: string, position: number): string {
  const digit = (Number(number[position]) + 1) % 10;
  return number.slice(0, position) + String(digit) + number.slice(position + 1);
}

describe('the test numbers the brief fixes', () => {
  it.each<[string, CardScheme]>([
    ['4111111111111111', 'VISA'],
    ['5555555555554444', 'MASTER'],
    ['6362970000457013', 'ELO'],
    ['378282246310005', 'AMERICAN_EXPRESS'],
    ['36227206271667', 'DINERS_CLUB'],
    ['6011111111111117', 'DISCOVER'],
    ['3566002020360505', 'JCB'],
  ])('%s is a valid %s card', (number, scheme) => {
    expect(luhnCheck(number)).toBe(true);
    expect(detectCardScheme(number)).toBe(scheme);
    expect(validateCardNumber(number)).toEqual({ ok: true, value: number, scheme });
  });

  it.each([
    '4000000000000002',
    '4000000000000069',
    '4000000000000119',
    '4000000000000127',
    '4000000000002701',
    '4000000000002503',
    '4000000000002420',
    '4000000000002370',
    '4000000000002644',
  ])('%s is a Luhn-valid Visa card', (number) => {
    expect(luhnCheck(number)).toBe(true);
    expect(validateCardNumber(number)).toEqual({ ok: true, value: number, scheme: 'VISA' });
  });
});

describe('detectCardScheme: several BINs per scheme', () => {
  // Processor test numbers (Stripe, Adyen, Braintree documentation) and generated numbers on scheme ranges.
  it.each<[CardScheme, string[]]>([
    ['VISA', ['4242424242424242', '4012888888881881', '4000056655665556', withLuhnDigit('4', 19)]],
    [
      'MASTER',
      ['5105105105105100', '5200828282828210', '2223003122003222', withLuhnDigit('2221'), withLuhnDigit('2720')],
    ],
    ['AMERICAN_EXPRESS', ['371449635398431', '378734493671000', withLuhnDigit('34', 15)]],
    ['DINERS_CLUB', ['30569309025904', '38520000023237', '3056930009020004', withLuhnDigit('39', 14)]],
    ['DISCOVER', ['6011000990139424', '6011981111111113', withLuhnDigit('644'), withLuhnDigit('649'), withLuhnDigit('65')]],
    ['JCB', ['3530111333300000', withLuhnDigit('3528'), withLuhnDigit('3589', 19)]],
    ['ELO', ['6362970000457013', withLuhnDigit('506699'), withLuhnDigit('509999'), withLuhnDigit('438935')]],
  ])('%s', (scheme, numbers) => {
    for (const number of numbers) {
      expect(luhnCheck(number)).toBe(true);
      expect(detectCardScheme(number)).toBe(scheme);
      expect(validateCardNumber(number)).toEqual({ ok: true, value: number, scheme });
    }
  });

  it('ignores spaces and hyphens', () => {
    expect(detectCardScheme('4111 1111 1111 1111')).toBe('VISA');
    expect(detectCardScheme('3782-822463-10005')).toBe('AMERICAN_EXPRESS');
  });

  it('returns null for schemes Colibri does not process', () => {
    for (const number of [
      '6200000000000005', // UnionPay
      '6759649826438453', // Maestro
      '6062825624254001', // Hipercard
      withLuhnDigit('220000'), // Mir
      withLuhnDigit('9792'), // Troy
      withLuhnDigit('650052'), // Troy, inside Discover's 65
      withLuhnDigit('384100', 19), // Hipercard's older BINs, inside Diners Club's 38
      withLuhnDigit('384140', 19),
      withLuhnDigit('384160', 19),
    ]) {
      expect(detectCardScheme(number)).toBeNull();
      expect(validateCardNumber(number)).toEqual({ ok: false, reason: 'UNKNOWN_SCHEME' });
    }
  });

  it('returns null for prefixes too short to decide and for non-numbers', () => {
    expect(detectCardScheme('4')).toBeNull(); // Visa, or one of the Elo BINs that start with 4.
    expect(detectCardScheme('6')).toBeNull();
    expect(detectCardScheme('')).toBeNull();
    expect(detectCardScheme('4111x111')).toBeNull();
  });
});

describe('detectCardScheme: Elo BINs inside other schemes’ ranges', () => {
  // Elo's BIN table as the brief gives it; single BINs are ranges of one.
  const ELO_RANGES: [number, number][] = [
    [401178, 401179],
    [438935, 438935],
    [457631, 457632],
    [431274, 431274],
    [451416, 451416],
    [457393, 457393],
    [504175, 504175],
    [506699, 506778],
    [509000, 509999],
    [627780, 627780],
    [636297, 636297],
    [636368, 636368],
    [650031, 650033],
    [650035, 650051],
    [650405, 650439],
    [650485, 650538],
    [650541, 650598],
    [650700, 650718],
    [650720, 650727],
    [650901, 650978],
    [651652, 651679],
    [655000, 655019],
    [655021, 655058],
  ];

  it('detects every BIN of every Elo range as Elo, with a valid 16-digit number', () => {
    const notElo: string[] = [];
    for (const [first, last] of ELO_RANGES) {
      for (let bin = first; bin <= last; bin += 1) {
        const number = withLuhnDigit(String(bin));
        const result = validateCardNumber(number);
        if (!result.ok || result.scheme !== 'ELO') notElo.push(number);
      }
    }
    expect(notElo).toEqual([]);
  });

  it('detects 650923 as Elo, although credit-card-type alone would call it Troy', () => {
    expect(detectCardScheme(withLuhnDigit('650923'))).toBe('ELO');
  });

  it('keeps the numbers just outside the Elo ranges with their own scheme', () => {
    const neighbours: [string, CardScheme | null][] = [
      ['401177', 'VISA'],
      ['401180', 'VISA'],
      ['438934', 'VISA'],
      ['438936', 'VISA'],
      ['457630', 'VISA'],
      ['457633', 'VISA'],
      ['431273', 'VISA'],
      ['451417', 'VISA'],
      ['457394', 'VISA'],
      ['504174', null], // Maestro
      ['506698', null], // Maestro
      ['506779', null], // Maestro
      ['627779', null], // UnionPay
      ['636296', null], // Maestro
      ['650030', 'DISCOVER'],
      ['650034', 'DISCOVER'],
      ['650404', 'DISCOVER'],
      ['650440', 'DISCOVER'],
      ['650539', 'DISCOVER'],
      ['650599', 'DISCOVER'],
      ['650719', 'DISCOVER'],
      ['650728', 'DISCOVER'],
      ['650979', 'DISCOVER'],
      ['651651', 'DISCOVER'],
      ['651680', 'DISCOVER'],
      ['655020', 'DISCOVER'],
      ['655059', 'DISCOVER'],
    ];
    for (const [bin, scheme] of neighbours) expect([bin, detectCardScheme(withLuhnDigit(bin))]).toEqual([bin, scheme]);
  });

  it('keeps the ordinary Visa, Mastercard and Discover test numbers', () => {
    expect(detectCardScheme('4111111111111111')).toBe('VISA');
    expect(detectCardScheme('5555555555554444')).toBe('MASTER');
    expect(detectCardScheme('6011111111111117')).toBe('DISCOVER');
  });
});

describe('cardBrands: the table the checkout page detects brands with', () => {
  // The page's rule, written out: the brand whose pattern is the longest prefix, the earlier brand on a tie.
  const brands = cardBrands();
  function longestPrefixBrand(digits: string) {
    let best: (typeof brands)[number] | null = null;
    let bestLength = 0;
    for (const brand of brands) {
      for (const pattern of brand.patterns) {
        const [min, max] = typeof pattern === 'number' ? [pattern, pattern] : pattern;
        const length = String(min).length;
        const prefix = Number(digits.slice(0, length));
        if (length > bestLength && prefix >= min && prefix <= max) {
          best = brand;
          bestLength = length;
        }
      }
    }
    return best;
  }

  it('lists our seven schemes first, and Hipercard with its 38 BINs as a brand we do not process', () => {
    expect(cardBrands().slice(0, 7).map((b) => b.scheme)).toEqual(['VISA', 'MASTER', 'ELO', 'AMERICAN_EXPRESS', 'DINERS_CLUB', 'DISCOVER', 'JCB']);
    expect(cardBrands().find((b) => b.type === 'hipercard')).toEqual({ type: 'hipercard', name: 'Hipercard', scheme: null, patterns: [606282, 384100, 384140, 384160] });
  });

  it('answers as detectCardScheme at both ends of every pattern, just outside them, and on every 61st BIN', () => {
    // Every pattern's bounds, widened to 8 digits (the longest pattern), and one digit either side of them.
    const prefixes = new Set<string>();
    for (const brand of brands) {
      for (const pattern of brand.patterns) {
        const [min, max] = typeof pattern === 'number' ? [pattern, pattern] : pattern;
        for (const bound of [min - 1, min, max, max + 1]) {
          prefixes.add(String(bound).padEnd(8, '0'));
          prefixes.add(String(bound).padEnd(8, '9'));
        }
      }
    }
    for (let bin = 100_000; bin <= 999_999; bin += 61) prefixes.add(String(bin));
    const differences: string[] = [];
    for (const prefix of prefixes) {
      const number = prefix.padEnd(16, '0');
      const page = longestPrefixBrand(number)?.scheme ?? null;
      if (page !== detectCardScheme(number)) differences.push(`${number}: page ${page}, vault ${detectCardScheme(number)}`);
    }
    expect(prefixes.size).toBeGreaterThan(15_000);
    expect(differences).toEqual([]);
    expect(longestPrefixBrand('6062825624254001')?.type).toBe('hipercard');
    expect(longestPrefixBrand(withLuhnDigit('384140', 19))?.type).toBe('hipercard');
  });
});

describe('luhnCheck', () => {
  it('fails every published number with any single digit changed', () => {
    for (const number of ['4111111111111111', '5555555555554444', '378282246310005', '36227206271667']) {
      for (let position = 0; position < number.length; position += 1) {
        expect(luhnCheck(withDigitChanged(number, position))).toBe(false);
      }
    }
  });

  it('fails adjacent transpositions other than 09/90', () => {
    expect(luhnCheck('4111111111111111')).toBe(true);
    expect(luhnCheck('1411111111111111')).toBe(false);
    expect(luhnCheck('5555555555545444')).toBe(false);
  });

  it('handles odd and even lengths', () => {
    expect(luhnCheck('79927398713')).toBe(true); // The textbook example.
    expect(luhnCheck('79927398710')).toBe(false);
    expect(luhnCheck(withLuhnDigit('6', 13))).toBe(true);
    expect(luhnCheck(withLuhnDigit('6', 19))).toBe(true);
  });

  it('refuses anything that is not digits', () => {
    expect(luhnCheck('')).toBe(false);
    expect(luhnCheck('4111 1111 1111 1111')).toBe(false);
    expect(luhnCheck('0000a')).toBe(false);
  });
});

describe('validateCardNumber', () => {
  it('reports the Luhn failure of an otherwise well-formed number', () => {
    expect(validateCardNumber('4111111111111112')).toEqual({ ok: false, reason: 'LUHN_CHECK_FAILED' });
    expect(validateCardNumber('6362970000457014')).toEqual({ ok: false, reason: 'LUHN_CHECK_FAILED' });
  });

  it('enforces the lengths each scheme issues', () => {
    expect(cardNumberLengths('AMERICAN_EXPRESS')).toEqual([15]);
    expect(cardNumberLengths('ELO')).toEqual([16]);
    // The old 13-digit Visa test number, a 16-digit Amex, 19-digit Mastercard and Elo, a 15-digit Diners.
    for (const number of [
      '4222222222222',
      withLuhnDigit('37', 16),
      withLuhnDigit('51', 19),
      withLuhnDigit('636297', 19),
      withLuhnDigit('36', 15),
    ]) {
      expect(luhnCheck(number)).toBe(true);
      expect(validateCardNumber(number)).toEqual({ ok: false, reason: 'INVALID_LENGTH_FOR_SCHEME' });
    }
    for (const [prefix, length] of [['4', 19], ['36', 16], ['3528', 17], ['6011', 19]] as const) {
      expect(validateCardNumber(withLuhnDigit(prefix, length))).toMatchObject({ ok: true });
    }
  });

  it('passes on parsing failures', () => {
    expect(validateCardNumber('4111-1111-1111-111X')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateCardNumber('41111111111')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });
});

describe('parseCardNumber', () => {
  it('removes spaces and hyphens', () => {
    expect(parseCardNumber('4111 1111 1111 1111')).toEqual({ ok: true, value: '4111111111111111' });
    expect(parseCardNumber('3782-822463-10005')).toEqual({ ok: true, value: '378282246310005' });
    expect(parseCardNumber(' 4111-1111 1111-1111 ')).toEqual({ ok: true, value: '4111111111111111' });
  });

  it('refuses any other character', () => {
    for (const input of ['4111.1111.1111.1111', '4111_1111_1111_1111', '411111111111111a', '4111\t1111111111111']) {
      expect(parseCardNumber(input)).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    }
    // Full-width and Arabic-Indic digits are digits to Unicode, but not card digits.
    expect(parseCardNumber('４１１１１１１１１１１１１１１１')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(parseCardNumber('٤١١١١١١١١١١١١١١١')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
  });

  it('accepts 12 to 19 digits only', () => {
    expect(parseCardNumber('1'.repeat(11))).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(parseCardNumber('1'.repeat(12))).toEqual({ ok: true, value: '1'.repeat(12) });
    expect(parseCardNumber('1'.repeat(19))).toEqual({ ok: true, value: '1'.repeat(19) });
    expect(parseCardNumber('1'.repeat(20))).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(parseCardNumber('')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(parseCardNumber(' - ')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });
});

describe('maskCardNumber', () => {
  it('shows the first six and last four digits of numbers of 14 digits or more', () => {
    expect(maskCardNumber('4111111111111111')).toBe('411111******1111');
    expect(maskCardNumber('4111 1111 1111 1111')).toBe('411111******1111');
    expect(maskCardNumber('378282246310005')).toBe('378282*****0005');
    expect(maskCardNumber('36227206271667')).toBe('362272****1667');
    expect(maskCardNumber('6362970000457013123')).toBe('636297*********3123');
  });

  it('shows fewer leading digits on shorter numbers, so at least four stay hidden', () => {
    expect(maskCardNumber('4222222222222')).toBe('42222****2222');
    expect(maskCardNumber('123456789012')).toBe('1234****9012');
  });

  it('hides at least the middle digits whatever the length', () => {
    for (let length = 12; length <= 19; length += 1) {
      const number = '1234567890123456789'.slice(0, length);
      const masked = maskCardNumber(number);
      expect(masked).toHaveLength(length);
      expect(masked.slice(0, 6).replace(/\*/g, '')).toBe(number.slice(0, masked.indexOf('*')));
      expect(masked.slice(-4)).toBe(number.slice(-4));
      expect(masked.match(/\*/g)?.length ?? 0).toBeGreaterThanOrEqual(4);
    }
  });

  it('masks anything that is not a card number completely', () => {
    expect(maskCardNumber('12345678901')).toBe('***********');
    expect(maskCardNumber('41111111111111111111')).toBe('********************');
    expect(maskCardNumber('4111-1111-1111-111X')).toBe('****************');
    expect(maskCardNumber('')).toBe('');
  });
});

describe('validateExpiry', () => {
  it('accepts a card through the last millisecond of its expiry month (UTC) and not after', () => {
    expect(validateExpiry('05', '2026', new Date('2026-05-31T23:59:59.999Z'))).toEqual({
      ok: true,
      month: 5,
      year: 2026,
    });
    expect(validateExpiry('05', '2026', new Date('2026-06-01T00:00:00.000Z'))).toEqual({
      ok: false,
      reason: 'EXPIRED',
    });
  });

  it('rolls over December into the next year and handles February in a leap year', () => {
    expect(validateExpiry(12, 2026, new Date('2026-12-31T23:59:59.999Z'))).toMatchObject({ ok: true });
    expect(validateExpiry(12, 2026, new Date('2027-01-01T00:00:00.000Z'))).toEqual({ ok: false, reason: 'EXPIRED' });
    expect(validateExpiry(2, 2028, new Date('2028-02-29T12:00:00.000Z'))).toMatchObject({ ok: true });
    expect(validateExpiry(2, 2028, new Date('2028-03-01T00:00:00.000Z'))).toEqual({ ok: false, reason: 'EXPIRED' });
  });

  it('is not expired earlier in the expiry month nor before it', () => {
    const now = new Date('2026-05-01T00:00:00.000Z');
    expect(validateExpiry(5, 2026, now)).toMatchObject({ ok: true });
    expect(validateExpiry(4, 2026, now)).toEqual({ ok: false, reason: 'EXPIRED' });
    expect(validateExpiry(1, 2027, now)).toMatchObject({ ok: true });
    expect(validateExpiry(12, 2025, now)).toEqual({ ok: false, reason: 'EXPIRED' });
  });

  it('accepts the month as "1", "01" or 1', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    for (const month of ['1', '01', 1, ' 1 ']) {
      expect(validateExpiry(month, '2030', now)).toEqual({ ok: true, month: 1, year: 2030 });
    }
  });

  it('refuses months outside 1–12', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    for (const month of ['0', '00', '13', '001', '1a', '', 0, 13, 1.5, -1]) {
      expect(validateExpiry(month, '2030', now)).toEqual({ ok: false, reason: 'INVALID_MONTH' });
    }
  });

  it('reads two-digit years as 20yy, as strings or numbers', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    expect(validateExpiry('07', '30', now)).toEqual({ ok: true, month: 7, year: 2030 });
    expect(validateExpiry('07', 30, now)).toEqual({ ok: true, month: 7, year: 2030 });
    expect(validateExpiry('07', '2030', now)).toEqual({ ok: true, month: 7, year: 2030 });
    expect(validateExpiry('07', '25', now)).toEqual({ ok: false, reason: 'EXPIRED' });
  });

  it('refuses years that are neither two nor four digits', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    for (const year of ['2', '030', '20300', 'twenty', '', 130, 20300, 2030.5, -26]) {
      expect(validateExpiry('07', year, now)).toEqual({ ok: false, reason: 'INVALID_YEAR' });
    }
  });

  it('refuses expiry years more than 20 years ahead as typing mistakes', () => {
    const now = new Date('2026-01-15T00:00:00Z');
    expect(validateExpiry(12, 2046, now)).toMatchObject({ ok: true });
    expect(validateExpiry(1, 2047, now)).toEqual({ ok: false, reason: 'TOO_FAR_IN_FUTURE' });
    expect(validateExpiry(1, '99', now)).toEqual({ ok: false, reason: 'TOO_FAR_IN_FUTURE' });
  });

  it('requires a valid `now`', () => {
    expect(() => validateExpiry(1, 2030, new Date('not a date'))).toThrow(RangeError);
  });
});
