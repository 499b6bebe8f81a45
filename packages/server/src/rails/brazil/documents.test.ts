import { describe, expect, it } from 'vitest';
import { maskTaxId, validateCnpj, validateCpf, validateTaxId } from './documents';

// An independent implementation of the check digits, written from the Receita Federal's description with the
// weights spelled out, used to generate valid numbers and to cross-check the module (which relies on stdnum).
function mod11Digit(base: string, weights: readonly number[]): string {
  let sum = 0;
  for (let i = 0; i < base.length; i += 1) sum += (base.charCodeAt(i) - 48) * (weights[i] ?? Number.NaN);
  const remainder = sum % 11;
  return String(remainder < 2 ? 0 : 11 - remainder);
}
function withCpfDigits(base9: string): string {
  const first = mod11Digit(base9, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return base9 + first + mod11Digit(base9 + first, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
}
function withCnpjDigits(base12: string): string {
  const first = mod11Digit(base12, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return base12 + first + mod11Digit(base12 + first, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
}

// A small deterministic generator (mulberry32), so a failure can be reproduced.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function randomString(next: () => number, alphabet: string, length: number): string {
  let text = '';
  for (let i = 0; i < length; i += 1) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

/** Every number that differs from `value` in exactly one of the two check digits. */
function withAlteredCheckDigits(value: string): string[] {
  const variants: string[] = [];
  for (const position of [value.length - 2, value.length - 1]) {
    for (let digit = 0; digit <= 9; digit += 1) {
      if (String(digit) === value[position]) continue;
      variants.push(value.slice(0, position) + String(digit) + value.slice(position + 1));
    }
  }
  return variants;
}

describe('validateCpf', () => {
  // Examples used throughout Brazilian documentation of the CPF algorithm.
  const published = ['529.982.247-25', '111.444.777-35', '123.456.789-09'];

  it.each(published)('accepts the published CPF %s and returns its compact form', (cpf) => {
    expect(validateCpf(cpf)).toEqual({ ok: true, value: cpf.replace(/\D/g, '') });
  });

  it('agrees with the reference check digits on the published examples', () => {
    for (const cpf of published) {
      const digits = cpf.replace(/\D/g, '');
      expect(withCpfDigits(digits.slice(0, 9))).toBe(digits);
    }
  });

  it('accepts the compact form, stray spaces and surrounding whitespace', () => {
    expect(validateCpf('52998224725')).toEqual({ ok: true, value: '52998224725' });
    expect(validateCpf('  529 982 247 25 ')).toEqual({ ok: true, value: '52998224725' });
    expect(validateCpf('529982247-25')).toEqual({ ok: true, value: '52998224725' });
  });

  it.each(published)('rejects %s with either check digit altered', (cpf) => {
    for (const altered of withAlteredCheckDigits(cpf.replace(/\D/g, ''))) {
      expect(validateCpf(altered)).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGITS' });
    }
  });

  it('rejects numbers whose digits are all the same, although they satisfy the check digits', () => {
    for (let digit = 0; digit <= 9; digit += 1) {
      const cpf = String(digit).repeat(11);
      expect(withCpfDigits(cpf.slice(0, 9))).toBe(cpf);
      expect(validateCpf(cpf)).toEqual({ ok: false, reason: 'REPEATED_DIGITS' });
    }
    expect(validateCpf('111.111.111-11')).toEqual({ ok: false, reason: 'REPEATED_DIGITS' });
  });

  it('rejects wrong lengths', () => {
    expect(validateCpf('5299822472')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateCpf('529982247250')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateCpf('')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateCpf('...-')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });

  it('rejects letters, other punctuation and non-ASCII digits', () => {
    expect(validateCpf('529.982.247-2A')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateCpf('529,982,247-25')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateCpf('529.982.247/25')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    // Full-width digits, which stdnum would silently convert.
    expect(validateCpf('５２９９８２２４７２５')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
  });

  it('accepts every generated valid CPF and rejects it with a check digit altered', () => {
    const next = random(11);
    const wrong: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const base = randomString(next, '0123456789', 9);
      if (/^(\d)\1*$/.test(base)) continue;
      const cpf = withCpfDigits(base);
      const result = validateCpf(cpf);
      if (!result.ok || result.value !== cpf) wrong.push(cpf);
      for (const altered of withAlteredCheckDigits(cpf)) if (validateCpf(altered).ok) wrong.push(altered);
    }
    expect(wrong).toEqual([]);
  });
});

describe('validateCnpj', () => {
  // The classic documentation example, and the public registrations of Banco do Brasil, Petrobras, Itaú
  // Unibanco and Bradesco.
  const publishedNumeric = [
    '11.222.333/0001-81',
    '00.000.000/0001-91',
    '33.000.167/0001-01',
    '60.701.190/0001-04',
    '60.746.948/0001-12',
  ];
  // The Receita Federal's published example of the alphanumeric CNPJ.
  const receitaAlphanumeric = '12.ABC.345/01DE-35';

  it.each([...publishedNumeric, receitaAlphanumeric])('accepts the published CNPJ %s in compact form', (cnpj) => {
    expect(validateCnpj(cnpj)).toEqual({ ok: true, value: cnpj.replace(/[./-]/g, '') });
  });

  it('agrees with the reference check digits on the published examples', () => {
    for (const cnpj of [...publishedNumeric, receitaAlphanumeric]) {
      const compact = cnpj.replace(/[./-]/g, '');
      expect(withCnpjDigits(compact.slice(0, 12))).toBe(compact);
    }
  });

  it('accepts the alphanumeric example without punctuation and in lower case, returning upper case', () => {
    expect(validateCnpj('12ABC34501DE35')).toEqual({ ok: true, value: '12ABC34501DE35' });
    expect(validateCnpj('12.abc.345/01de-35')).toEqual({ ok: true, value: '12ABC34501DE35' });
    expect(validateCnpj(' 12 ABC 345 01DE 35 ')).toEqual({ ok: true, value: '12ABC34501DE35' });
  });

  it.each([...publishedNumeric, receitaAlphanumeric])('rejects %s with either check digit altered', (cnpj) => {
    for (const altered of withAlteredCheckDigits(cnpj.replace(/[./-]/g, ''))) {
      expect(validateCnpj(altered)).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGITS' });
    }
  });

  it('rejects the alphanumeric example with a letter changed, because letters count in the check digits', () => {
    expect(validateCnpj('12.ABD.345/01DE-35')).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGITS' });
    expect(validateCnpj('12.ABC.345/01DF-35')).toEqual({ ok: false, reason: 'INVALID_CHECK_DIGITS' });
  });

  it('rejects letters in the check digit positions', () => {
    expect(validateCnpj('12.ABC.345/01DE-3A')).toEqual({ ok: false, reason: 'INVALID_FORMAT' });
    expect(validateCnpj('12ABC34501DEA5')).toEqual({ ok: false, reason: 'INVALID_FORMAT' });
  });

  it('rejects numbers whose digits are all the same', () => {
    for (let digit = 0; digit <= 9; digit += 1) {
      expect(validateCnpj(String(digit).repeat(14))).toEqual({ ok: false, reason: 'REPEATED_DIGITS' });
    }
    // 00.000.000/0000-00 satisfies the check digits, which is why the rule is needed.
    expect(withCnpjDigits('000000000000')).toBe('00000000000000');
  });

  it('rejects wrong lengths', () => {
    expect(validateCnpj('1122233300018')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateCnpj('112223330001811')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateCnpj('')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    // A valid CPF is not a CNPJ.
    expect(validateCnpj('529.982.247-25')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });

  it('rejects characters outside A-Z, 0-9 and the separators', () => {
    expect(validateCnpj('12.ÀBC.345/01DE-35')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateCnpj('11.222.333_0001-81')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateCnpj('１１２２２３３３０００１８１')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
  });

  it('accepts every generated valid alphanumeric CNPJ and rejects it with a check digit altered', () => {
    const next = random(14);
    const wrong: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const cnpj = withCnpjDigits(randomString(next, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 12));
      const result = validateCnpj(cnpj);
      if (!result.ok || result.value !== cnpj) wrong.push(cnpj);
      for (const altered of withAlteredCheckDigits(cnpj)) if (validateCnpj(altered).ok) wrong.push(altered);
      if (validateCnpj(cnpj.toLowerCase()).ok !== true) wrong.push(cnpj.toLowerCase());
    }
    expect(wrong).toEqual([]);
  });

  it('accepts every generated valid numeric CNPJ', () => {
    const next = random(8);
    const wrong: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const cnpj = withCnpjDigits(randomString(next, '0123456789', 12));
      if (/^(\d)\1*$/.test(cnpj)) continue;
      const result = validateCnpj(cnpj);
      if (!result.ok || result.value !== cnpj) wrong.push(cnpj);
    }
    expect(wrong).toEqual([]);
  });
});

describe('validateTaxId', () => {
  it('validates the number as the given type', () => {
    expect(validateTaxId('CPF', '529.982.247-25')).toEqual({ ok: true, value: '52998224725' });
    expect(validateTaxId('CNPJ', '12.ABC.345/01DE-35')).toEqual({ ok: true, value: '12ABC34501DE35' });
    expect(validateTaxId('CPF', '11.222.333/0001-81')).toEqual({ ok: false, reason: 'INVALID_CHARACTERS' });
    expect(validateTaxId('CPF', '11222333000181')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
    expect(validateTaxId('CNPJ', '52998224725')).toEqual({ ok: false, reason: 'INVALID_LENGTH' });
  });
});

describe('maskTaxId', () => {
  it('shows only the middle six digits of a CPF, with or without punctuation', () => {
    expect(maskTaxId('CPF', '123.456.789-09')).toBe('***.456.789-**');
    expect(maskTaxId('CPF', '52998224725')).toBe('***.982.247-**');
  });

  it('shows only six characters of the middle of a CNPJ root', () => {
    expect(maskTaxId('CNPJ', '12.ABC.345/01DE-35')).toBe('**.ABC.345/****-**');
    expect(maskTaxId('CNPJ', '11222333000181')).toBe('**.222.333/****-**');
    expect(maskTaxId('CNPJ', '12abc34501de35')).toBe('**.ABC.345/****-**');
  });

  it('never reveals the first digits, the branch or the check digits', () => {
    const masked = maskTaxId('CNPJ', '98.765.432/1234-56');
    for (const hidden of ['98', '1234', '56']) expect(masked).not.toContain(hidden);
    expect(maskTaxId('CPF', '987.654.321-00')).not.toMatch(/987|00$/);
  });

  it('masks everything when the value does not have the shape of the type', () => {
    expect(maskTaxId('CPF', '123.456.789')).toBe('***.***.***-**');
    expect(maskTaxId('CPF', '11.222.333/0001-81')).toBe('***.***.***-**');
    expect(maskTaxId('CNPJ', '529.982.247-25')).toBe('**.***.***/****-**');
    expect(maskTaxId('CNPJ', '12.ABC.345/01DE-3X')).toBe('**.***.***/****-**');
  });
});
