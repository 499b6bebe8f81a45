/**
 * Chilean RUT (Rol Único Tributario): a body of up to eight digits and a mod-11 check digit, 0-9 or K.
 *
 * stdnum's `cl/rut` computes the same check digit, but it is not used here for three reasons: its
 * `validate` rejects the dotted form `12.345.678-5` (it strips only spaces and hyphens), it rejects bodies
 * shorter than seven digits, and a lower-case `k` comes back as an ordinary checksum failure, while the
 * payout interface needs "lower-case k" reported as a mistake of its own. The tests cross-check this
 * implementation against stdnum on a fixed sample of 7- and 8-digit bodies, where both apply.
 */

/** A parsed RUT, or why it is not one. Failures after the format step still carry the body digits. */
export type RutCheck =
  | { readonly ok: true; readonly body: string; readonly checkDigit: string; readonly compact: string }
  | { readonly ok: false; readonly reason: 'FORMAT' }
  | { readonly ok: false; readonly reason: 'CHECK_DIGIT' | 'LOWERCASE_K'; readonly body: string };

// The three accepted spellings: dotted with a hyphen, plain with a hyphen, and all run together.
// Dots, when used, must group the body in threes from the right, as Chileans write it.
const DOTTED = /^(\d{1,3}(?:\.\d{3})+)-([0-9Kk])$/;
const HYPHENATED = /^(\d+)-([0-9Kk])$/;
const COMPACT = /^(\d+)([0-9Kk])$/;
// The body is one to eight digits; a leading zero is refused so each RUT has exactly one spelling.
const BODY = /^[1-9]\d{0,7}$/;

/**
 * Computes the check digit of a RUT body: weights 2, 3, 4, 5, 6, 7 repeating from the rightmost digit,
 * then 11 minus the sum modulo 11, where 11 is written `0` and 10 is written `K`.
 * @example rutCheckDigit('12345678') // '5'
 * @example rutCheckDigit('60803000') // 'K'
 */
export function rutCheckDigit(body: string): string {
  if (!/^\d+$/.test(body)) throw new RangeError('A RUT body is made of digits only');
  let sum = 0;
  let weight = 2;
  for (let i = body.length - 1; i >= 0; i -= 1) {
    sum += Number(body[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  if (digit === 11) return '0';
  if (digit === 10) return 'K';
  return String(digit);
}

/**
 * Parses and checks a RUT written `12.345.678-5`, `12345678-5` or `123456785`. The steps run in a fixed
 * order: format, then the check digit (compared case-insensitively), then the upper-case K. So `k` in
 * place of a correct `K` gives `LOWERCASE_K`, and a `k` where the digit should be `5` gives `CHECK_DIGIT`.
 * @example checkRut('12.345.678-5') // { ok: true, body: '12345678', checkDigit: '5', compact: '12345678-5' }
 * @example checkRut('60803000-k')   // { ok: false, reason: 'LOWERCASE_K', body: '60803000' }
 */
export function checkRut(input: string): RutCheck {
  const match = DOTTED.exec(input) ?? HYPHENATED.exec(input) ?? COMPACT.exec(input);
  const body = match?.[1]?.replaceAll('.', '');
  const given = match?.[2];
  if (body === undefined || given === undefined || !BODY.test(body)) return { ok: false, reason: 'FORMAT' };
  const expected = rutCheckDigit(body);
  if (given.toUpperCase() !== expected) return { ok: false, reason: 'CHECK_DIGIT', body };
  if (given !== expected) return { ok: false, reason: 'LOWERCASE_K', body };
  return { ok: true, body, checkDigit: expected, compact: `${body}-${expected}` };
}

/**
 * Whether a string is a valid RUT in one of the accepted spellings, with an upper-case K.
 * @example isValidRut('97.030.000-7') // true
 * @example isValidRut('97.030.000-8') // false
 */
export function isValidRut(input: string): boolean {
  return checkRut(input).ok;
}

/**
 * Writes a RUT body and check digit the way Chileans read it, with dots and a hyphen.
 * @example formatRut('12345678', '5') // '12.345.678-5'
 */
export function formatRut(body: string, checkDigit: string): string {
  return `${body.replace(/\B(?=(\d{3})+$)/g, '.')}-${checkDigit}`;
}
