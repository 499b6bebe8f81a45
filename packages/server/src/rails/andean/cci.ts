/**
 * Peruvian CCI (Código de Cuenta Interbancario): the 20-digit account code that interbank transfers use.
 *
 * Layout: 3 digits of bank (entity), 3 of branch (office), 12 of account, then 2 check digits. The first
 * check digit covers the 6 digits of bank and branch, the second the 12 account digits. Each is computed
 * the same way: multiply the digits by 1, 2, 1, 2, ... from the left, add up the digits of each product
 * (14 counts as 1 + 4), and take the amount that brings the sum up to the next multiple of ten (0 when
 * the sum already is one). Because both groups have an even length, this is exactly a Luhn check digit
 * over each group. The tests check it against CCIs published by Peruvian organisations for BCP,
 * Interbank, BBVA, Scotiabank and Banco de la Nación.
 *
 * Written here because stdnum has no CCI validator.
 */

/** The parts of a CCI. */
export interface Cci {
  readonly bank: string;
  readonly branch: string;
  readonly account: string;
  readonly checkDigits: string;
}

export type CciCheck =
  | { readonly ok: true; readonly cci: Cci }
  | { readonly ok: false; readonly reason: 'FORMAT' | 'CHECK_DIGITS' };

/** The number of digits in a CCI. */
export const CCI_LENGTH = 20;

/**
 * Computes one CCI check digit over a group of digits (bank and branch, or the account).
 * @example cciCheckDigit('002191')       // '5'
 * @example cciCheckDigit('000215772014') // '1'
 */
export function cciCheckDigit(group: string): string {
  if (!/^\d+$/.test(group)) throw new RangeError('A CCI group is made of digits only');
  let sum = 0;
  for (let i = 0; i < group.length; i += 1) {
    const product = Number(group[i]) * (i % 2 === 0 ? 1 : 2);
    // A product is at most 18, so the sum of its digits is the product minus 9 when it has two.
    sum += product > 9 ? product - 9 : product;
  }
  return String((10 - (sum % 10)) % 10);
}

/**
 * Computes both check digits for the first 18 digits of a CCI (bank, branch and account).
 * @example cciCheckDigits('002191000215772014') // '51'
 */
export function cciCheckDigits(first18: string): string {
  if (!/^\d{18}$/.test(first18)) throw new RangeError('The first 18 digits of a CCI are needed');
  return cciCheckDigit(first18.slice(0, 6)) + cciCheckDigit(first18.slice(6, 18));
}

/**
 * Checks a CCI: exactly 20 ASCII digits with no spaces, hyphens or other characters, then both check digits.
 * @example checkCci('00219100021577201451') // { ok: true, cci: { bank: '002', branch: '191', account: '000215772014', checkDigits: '51' } }
 * @example checkCci('002-191-000215772014-51') // { ok: false, reason: 'FORMAT' }
 */
export function checkCci(input: string): CciCheck {
  if (!/^\d{20}$/.test(input)) return { ok: false, reason: 'FORMAT' };
  const cci: Cci = {
    bank: input.slice(0, 3),
    branch: input.slice(3, 6),
    account: input.slice(6, 18),
    checkDigits: input.slice(18),
  };
  if (cciCheckDigits(input.slice(0, 18)) !== cci.checkDigits) return { ok: false, reason: 'CHECK_DIGITS' };
  return { ok: true, cci };
}

/**
 * Whether a string is a CCI with correct check digits.
 * @example isValidCci('00320000300772327830') // true
 * @example isValidCci('00320000300772327831') // false
 */
export function isValidCci(input: string): boolean {
  return checkCci(input).ok;
}

/**
 * Writes a valid CCI in the grouping banks print, `bbb-sss-aaaaaaaaaaaa-dd`.
 * @example formatCci('00219100021577201451') // '002-191-000215772014-51'
 */
export function formatCci(input: string): string {
  const result = checkCci(input);
  if (!result.ok) throw new RangeError('Not a valid CCI');
  const { bank, branch, account, checkDigits } = result.cci;
  return `${bank}-${branch}-${account}-${checkDigits}`;
}
