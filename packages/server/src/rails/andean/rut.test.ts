import { stdnum } from 'stdnum';
import { describe, expect, it } from 'vitest';
import { checkRut, formatRut, isValidRut, rutCheckDigit } from './rut';

// RUTs of Chilean public bodies and banks, as they publish them on their invoices and web sites.
const PUBLISHED_VALID = [
  { rut: '60.803.000-K', holder: 'Servicio de Impuestos Internos (SII)' },
  { rut: '97.030.000-7', holder: 'BancoEstado' },
  { rut: '97.004.000-5', holder: 'Banco de Chile' },
  { rut: '61.704.000-K', holder: 'Codelco' },
] as const;

describe('rutCheckDigit', () => {
  it.each([
    ['12345678', '5'],
    ['60803000', 'K'],
    ['97030000', '7'],
    ['1234567', '4'],
    ['5', '1'],
    ['999999', 'K'],
  ])('%s has check digit %s', (body, digit) => {
    expect(rutCheckDigit(body)).toBe(digit);
  });

  it('refuses a body that is not digits', () => {
    expect(() => rutCheckDigit('12.345')).toThrow(RangeError);
  });
});

describe('checkRut', () => {
  it.each(PUBLISHED_VALID)('accepts the published RUT $rut ($holder)', ({ rut }) => {
    expect(isValidRut(rut)).toBe(true);
  });

  it.each(['76086428-5', '12531909-2'])('accepts %s (stdnum test vector)', (rut) => {
    expect(isValidRut(rut)).toBe(true);
  });

  it('reads the three spellings of the same RUT alike', () => {
    for (const spelling of ['12.345.678-5', '12345678-5', '123456785']) {
      expect(checkRut(spelling)).toEqual({ ok: true, body: '12345678', checkDigit: '5', compact: '12345678-5' });
    }
  });

  it('accepts short bodies, dotted or not', () => {
    expect(checkRut('1.234.567-4').ok).toBe(true);
    expect(checkRut('999.999-K').ok).toBe(true);
    expect(checkRut('5-1').ok).toBe(true);
  });

  it.each([
    ['97.030.000-8', 'CHECK_DIGIT'],
    ['12531909-3', 'CHECK_DIGIT'],
    ['12345678-K', 'CHECK_DIGIT'],
    // A lower-case k where the digit is not K at all is a wrong check digit first.
    ['12345678-k', 'CHECK_DIGIT'],
    ['60.803.000-k', 'LOWERCASE_K'],
    ['60803000k', 'LOWERCASE_K'],
    ['12,345,678-5', 'FORMAT'],
    ['12.345678-5', 'FORMAT'],
    ['1.2345.678-5', 'FORMAT'],
    ['012345678-5', 'FORMAT'],
    ['123456789-1', 'FORMAT'],
    ['12345678-', 'FORMAT'],
    ['12345678-X', 'FORMAT'],
    [' 12345678-5', 'FORMAT'],
    ['12345678 5', 'FORMAT'],
    ['CL12345678-5', 'FORMAT'],
    ['', 'FORMAT'],
  ])('refuses %s with %s', (rut, reason) => {
    expect(checkRut(rut)).toMatchObject({ ok: false, reason });
  });

  it('keeps the body when only the check digit or its case is wrong', () => {
    expect(checkRut('60.803.000-k')).toEqual({ ok: false, reason: 'LOWERCASE_K', body: '60803000' });
    expect(checkRut('12.345.678-6')).toEqual({ ok: false, reason: 'CHECK_DIGIT', body: '12345678' });
  });

  it('agrees with stdnum cl/rut on every 7- and 8-digit body tried', () => {
    const stdnumRut = stdnum.CL?.rut;
    expect(stdnumRut).toBeDefined();
    // A fixed linear congruential sequence, so the same bodies are tried on every run.
    let seed = 20240611;
    for (let i = 0; i < 2000; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const body = String(1_000_000 + (seed % 99_000_000));
      const digit = rutCheckDigit(body);
      const wrong = digit === '0' ? '1' : '0';
      expect(stdnumRut?.validate(`${body}-${digit}`).isValid).toBe(true);
      expect(stdnumRut?.validate(`${body}-${wrong}`).isValid).toBe(false);
      expect(isValidRut(`${body}-${digit}`)).toBe(true);
      expect(isValidRut(`${body}-${wrong}`)).toBe(false);
    }
  });
});

describe('formatRut', () => {
  it.each([
    ['12345678', '5', '12.345.678-5'],
    ['1234567', '4', '1.234.567-4'],
    ['999999', 'K', '999.999-K'],
    ['5', '1', '5-1'],
  ])('writes %s-%s as %s', (body, digit, formatted) => {
    expect(formatRut(body, digit)).toBe(formatted);
  });
});
