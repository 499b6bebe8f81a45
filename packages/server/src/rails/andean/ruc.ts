/**
 * Peruvian RUC (Registro Único de Contribuyentes): eleven digits, a two-digit kind prefix and a mod-11
 * check digit (weights 5, 4, 3, 2, 7, 6, 5, 4, 3, 2).
 *
 * The check digit is delegated to stdnum's `pe/ruc`, whose computation is the published SUNAT one. Length,
 * characters and the prefix are checked here first: stdnum strips spaces and hyphens before validating,
 * which a payout must not do silently, and it also accepts the prefix 16, which the payout interface
 * does not list (it allows 10, 15, 17 and 20 only).
 */
import { stdnum } from 'stdnum';

/** The RUC prefixes the payout interface accepts (10 is a natural person with a DNI, 20 a legal entity). */
export const RUC_PREFIXES: readonly string[] = ['10', '15', '17', '20'];

export type RucCheck = { readonly ok: true } | { readonly ok: false; readonly reason: 'LENGTH' | 'FORMAT' | 'PREFIX' | 'CHECK_DIGIT' };

const stdnumRuc = stdnum.PE?.ruc;

/**
 * Checks a RUC in a fixed order: length 11, digits only, prefix, check digit.
 * @example checkRuc('20131312955') // { ok: true }
 * @example checkRuc('20131312954') // { ok: false, reason: 'CHECK_DIGIT' }
 */
export function checkRuc(input: string): RucCheck {
  if (input.length !== 11) return { ok: false, reason: 'LENGTH' };
  if (!/^\d{11}$/.test(input)) return { ok: false, reason: 'FORMAT' };
  if (!RUC_PREFIXES.includes(input.slice(0, 2))) return { ok: false, reason: 'PREFIX' };
  if (stdnumRuc === undefined) throw new Error('stdnum no longer provides PE.ruc');
  // Only the checksum can still fail at this point, since length and characters were checked above.
  return stdnumRuc.validate(input).isValid ? { ok: true } : { ok: false, reason: 'CHECK_DIGIT' };
}

/**
 * Whether a string is a valid RUC: eleven digits, an accepted prefix and a correct check digit.
 * @example isValidRuc('20100047218') // true
 * @example isValidRuc('16100047218') // false: prefix 16 is not accepted
 */
export function isValidRuc(input: string): boolean {
  return checkRuc(input).ok;
}
