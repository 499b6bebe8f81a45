/**
 * Colombian NIT (Número de Identificación Tributaria) as sent in a payout: the base number followed by
 * its DIAN check digit, digits only, nine or ten digits in all.
 *
 * The check digit is delegated to stdnum's `co/nit`, whose weights (3, 7, 13, 17, ... from the right,
 * modulo 11) are the DIAN ones. Length and characters are checked here first because stdnum accepts
 * 8 to 16 characters and strips dots, commas, hyphens and spaces, which a payout must not do silently.
 */
import { stdnum } from 'stdnum';

export type NitCheck = { readonly ok: true } | { readonly ok: false; readonly reason: 'FORMAT' | 'CHECK_DIGIT' };

const stdnumNit = stdnum.CO?.nit;

/**
 * Checks a NIT with its check digit: 9 or 10 digits, then the DIAN mod-11 check digit.
 * @example checkNit('8001972684') // { ok: true } (the DIAN's own NIT, 800.197.268-4)
 * @example checkNit('800197268-4') // { ok: false, reason: 'FORMAT' }
 */
export function checkNit(input: string): NitCheck {
  if (!/^\d{9,10}$/.test(input)) return { ok: false, reason: 'FORMAT' };
  if (stdnumNit === undefined) throw new Error('stdnum no longer provides CO.nit');
  return stdnumNit.validate(input).isValid ? { ok: true } : { ok: false, reason: 'CHECK_DIGIT' };
}

/**
 * Whether a string is a NIT with a correct check digit, digits only.
 * @example isValidNit('8909039388') // true
 */
export function isValidNit(input: string): boolean {
  return checkNit(input).ok;
}
