/**
 * Card numbers (PANs) and expiry dates: parsing, the Luhn check, scheme detection, masking. Pure functions,
 * no I/O.
 *
 * Scheme detection is delegated to `credit-card-type` (Braintree), which suits us as it is:
 * - its Elo entry lists Elo's BIN ranges (401178, 438935, 504175, 506699–506778, 509000–509999, 636297,
 *   650031–650033, … 655021–655058), which sit inside Visa's 4, Discover's 65 and Maestro's 5/6 ranges;
 * - each matching scheme gets a `matchStrength`, the length of the pattern that matched, and once the number is
 *   long enough for every candidate to have one, only the strongest is returned, so the longest prefix wins:
 *   6362970000457013 is Elo (636297, 6 digits) rather than Maestro (63) and 6500310000000000 is Elo rather than
 *   Discover (65), while 4111111111111111 stays Visa because no longer pattern matches it;
 * - its per-scheme lengths are the ones we want (Visa 16/18/19, Mastercard 16, Amex 15, Diners 14/16/19,
 *   Discover 16/19, JCB 16–19, Elo 16).
 * Colibri accepts seven schemes; numbers the library attributes to any other (Maestro, UnionPay, Hipercard,
 * Hiper, Troy, Mir, Verve, Naranja) have no scheme here.
 *
 * A second correction: Hipercard's older 19-digit cards carry BINs 384100, 384140 and 384160, which the
 * library only knows as Diners Club's 38. They are Hipercard's (not a scheme Colibri processes), so they
 * have no scheme here either, rather than being sent to the processor as Diners Club cards.
 *
 * One correction on top of the library: when two schemes match with the same strength it keeps the one listed
 * first, and its Troy entry (a Turkish scheme) lists BIN 650923, which is also inside Elo's 650901–650978. Troy
 * comes first, so the library calls 650923… Troy. An exhaustive pass over all six-digit prefixes found this to
 * be the only tie involving one of our schemes, and a number presented to a Brazilian service there is Elo, so
 * a tie between one of our schemes and one we do not process is resolved in favour of ours.
 *
 * The library keeps a module-wide, mutable table (`addCard`, `changeOrder`…); nothing in Colibri may call
 * those, or this module's answers would change with it.
 */
import creditCardType from 'credit-card-type';

/** The card schemes Colibri processes, named as the API names them. */
export type CardScheme = 'VISA' | 'MASTER' | 'ELO' | 'AMERICAN_EXPRESS' | 'DINERS_CLUB' | 'DISCOVER' | 'JCB';

// Our scheme names and the library's identifiers for them, in both directions.
const LIBRARY_TYPE_BY_SCHEME: Record<CardScheme, string> = {
  VISA: 'visa',
  MASTER: 'mastercard',
  ELO: 'elo',
  AMERICAN_EXPRESS: 'american-express',
  DINERS_CLUB: 'diners-club',
  DISCOVER: 'discover',
  JCB: 'jcb',
};
const SCHEME_BY_LIBRARY_TYPE = new Map<string, CardScheme>(
  Object.entries(LIBRARY_TYPE_BY_SCHEME).map(([scheme, type]) => [type, scheme as CardScheme]),
);

/** Hipercard's BINs inside Diners Club's 38 range, which the library does not list (see the module comment). */
const HIPERCARD_38_BINS: readonly number[] = [384100, 384140, 384160];

/** The shortest and longest card numbers ISO/IEC 7812 allows. */
export const CARD_NUMBER_MIN_LENGTH = 12;
export const CARD_NUMBER_MAX_LENGTH = 19;

/** The outcome of parsing a card number: its digits, or why it is not one. */
export type ParseCardNumberResult =
  | { ok: true; value: string }
  | { ok: false; reason: 'INVALID_CHARACTERS' | 'INVALID_LENGTH' };

/**
 * Parses a card number as typed: spaces and hyphens (the usual grouping) are removed, anything else but ASCII
 * digits is refused, and the length must be 12 to 19 digits. No Luhn or scheme check; see `validateCardNumber`.
 * @example parseCardNumber('4111 1111-1111 1111') // { ok: true, value: '4111111111111111' }
 * @example parseCardNumber('4111 1111 1111 111a') // { ok: false, reason: 'INVALID_CHARACTERS' }
 */
export function parseCardNumber(input: string): ParseCardNumberResult {
  if (typeof input !== 'string') return { ok: false, reason: 'INVALID_CHARACTERS' };
  const value = input.replace(/[ -]/g, '');
  if (!/^[0-9]*$/.test(value)) return { ok: false, reason: 'INVALID_CHARACTERS' };
  if (value.length < CARD_NUMBER_MIN_LENGTH || value.length > CARD_NUMBER_MAX_LENGTH) {
    return { ok: false, reason: 'INVALID_LENGTH' };
  }
  return { ok: true, value };
}

/**
 * The Luhn (mod 10) check: from the rightmost digit, every second digit is doubled (minus 9 when over 9), and
 * the sum of all digits must be a multiple of 10. Returns false for anything that is not a non-empty string of
 * ASCII digits.
 * @example luhnCheck('4111111111111111') // true
 * @example luhnCheck('4111111111111112') // false
 */
export function luhnCheck(digits: string): boolean {
  if (typeof digits !== 'string' || !/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * The scheme of a card number, or null when it belongs to none of Colibri's schemes or is too short to tell.
 * Where BIN ranges overlap, the longest matching prefix wins, so Elo BINs inside Visa, Discover or Maestro
 * ranges are Elo. Spaces and hyphens are ignored; the Luhn check and the length are not verified here.
 * @example detectCardScheme('6362970000457013') // 'ELO'
 * @example detectCardScheme('4111111111111111') // 'VISA'
 * @example detectCardScheme('6200000000000005') // null (UnionPay)
 */
export function detectCardScheme(cardNumber: string): CardScheme | null {
  if (typeof cardNumber !== 'string') return null;
  const digits = cardNumber.replace(/[ -]/g, '');
  if (!/^[0-9]+$/.test(digits)) return null;
  if (matchStrength(digits, HIPERCARD_38_BINS) > 0) return null;
  const matches = creditCardType(digits);
  // More than one candidate means the prefix is still ambiguous (too few digits for the longest patterns); the
  // library returns a single one once a longest match is certain.
  const [only] = matches;
  if (matches.length !== 1 || only === undefined) return null;
  const scheme = SCHEME_BY_LIBRARY_TYPE.get(only.type);
  if (scheme !== undefined) return scheme;
  // The winner is a scheme we do not process; if one of ours matched just as strongly, the library only
  // preferred the other because it is listed first (see the module comment), so ours wins the tie.
  const strength = only.matchStrength ?? 0;
  if (strength === 0) return null;
  for (const [ours, type] of Object.entries(LIBRARY_TYPE_BY_SCHEME)) {
    if (matchStrength(digits, creditCardType.getTypeInfo(type).patterns) === strength) return ours as CardScheme;
  }
  return null;
}

/**
 * The length of the longest of `patterns` that `digits` starts with, or 0. A pattern is a prefix (a number) or
 * an inclusive range of prefixes of equal length (`[min, max]`), as `credit-card-type` defines them.
 */
function matchStrength(digits: string, patterns: readonly (number | number[])[]): number {
  let strength = 0;
  for (const pattern of patterns) {
    const [min, max] = Array.isArray(pattern) ? pattern : [pattern, pattern];
    if (min === undefined || max === undefined) continue;
    const length = String(min).length;
    if (digits.length < length) continue;
    const prefix = Number(digits.slice(0, length));
    if (prefix >= min && prefix <= max) strength = Math.max(strength, length);
  }
  return strength;
}

/** One brand of `cardBrands`: its BIN patterns and, when Colibri processes it, its scheme. */
export interface CardBrand {
  /** The library's identifier: `visa`, `elo`, `hipercard`, … */
  readonly type: string;
  /** The brand as people write it: Visa, Mastercard, Hipercard, … */
  readonly name: string;
  /** Colibri's scheme, or null for a brand the vault refuses (`CARD_SCHEME_UNSUPPORTED`). */
  readonly scheme: CardScheme | null;
  /** Prefixes and inclusive ranges of equal-length prefixes, as `credit-card-type` writes them. */
  readonly patterns: readonly (number | readonly [number, number])[];
}

/**
 * Every brand the scheme detection knows, Colibri's seven first, each with the BIN patterns
 * `detectCardScheme` uses (the Hipercard correction included). A browser that picks the brand whose
 * pattern is the longest prefix of a complete number, preferring the earlier brand on a tie, answers as
 * `detectCardScheme` does; the checkout page's script does exactly that, so the page shows the brand the
 * vault will find.
 * @example cardBrands().find((b) => b.type === 'hipercard') // { type: 'hipercard', name: 'Hipercard', scheme: null, patterns: [606282, 384100, 384140, 384160] }
 */
export function cardBrands(): CardBrand[] {
  const ours = Object.entries(LIBRARY_TYPE_BY_SCHEME).map(([scheme, type]) => ({ type, scheme: scheme as CardScheme }));
  const others = Object.values(creditCardType.types)
    .filter((type) => !SCHEME_BY_LIBRARY_TYPE.has(type))
    .map((type) => ({ type, scheme: null }));
  return [...ours, ...others].map(({ type, scheme }) => {
    const info = creditCardType.getTypeInfo(type);
    const patterns = info.patterns.map((p) => (Array.isArray(p) ? ([p[0], p[1]] as [number, number]) : (p as number)));
    return { type, name: info.niceType, scheme, patterns: type === 'hipercard' ? [...patterns, ...HIPERCARD_38_BINS] : patterns };
  });
}

/**
 * The card-number lengths a scheme issues.
 * @example cardNumberLengths('AMERICAN_EXPRESS') // [15]
 */
export function cardNumberLengths(scheme: CardScheme): readonly number[] {
  return creditCardType.getTypeInfo(LIBRARY_TYPE_BY_SCHEME[scheme]).lengths;
}

/** Why a card number was refused by `validateCardNumber`. */
export type CardNumberFailureReason =
  | 'INVALID_CHARACTERS'
  | 'INVALID_LENGTH'
  | 'LUHN_CHECK_FAILED'
  | 'UNKNOWN_SCHEME'
  | 'INVALID_LENGTH_FOR_SCHEME';

/** The outcome of `validateCardNumber`: the digits and the scheme, or the reason. */
export type CardNumberResult =
  | { ok: true; value: string; scheme: CardScheme }
  | { ok: false; reason: CardNumberFailureReason };

/**
 * Fully validates a card number: parses it (`parseCardNumber`), applies the Luhn check, detects the scheme and
 * checks the length is one the scheme issues.
 * @example validateCardNumber('4111 1111 1111 1111') // { ok: true, value: '4111111111111111', scheme: 'VISA' }
 * @example validateCardNumber('5555555555554445')    // { ok: false, reason: 'LUHN_CHECK_FAILED' }
 */
export function validateCardNumber(input: string): CardNumberResult {
  const parsed = parseCardNumber(input);
  if (!parsed.ok) return parsed;
  const { value } = parsed;
  if (!luhnCheck(value)) return { ok: false, reason: 'LUHN_CHECK_FAILED' };
  const scheme = detectCardScheme(value);
  if (scheme === null) return { ok: false, reason: 'UNKNOWN_SCHEME' };
  if (!cardNumberLengths(scheme).includes(value.length)) return { ok: false, reason: 'INVALID_LENGTH_FOR_SCHEME' };
  return { ok: true, value, scheme };
}

/**
 * Masks a card number for display and logs: at most the first six and the last four digits are shown (the
 * most PCI DSS allows), the rest become `*`, and spaces and hyphens are dropped.
 *
 * At least four digits always stay hidden, so numbers shorter than 14 digits show fewer leading digits (first
 * five of 13, first four of 12). Anything that is not 12 to 19 digits is not a card number we can reason
 * about, and is masked completely so that a malformed value cannot leak.
 * @example maskCardNumber('4111 1111 1111 1111') // '411111******1111'
 * @example maskCardNumber('378282246310005')     // '378282*****0005'
 */
export function maskCardNumber(cardNumber: string): string {
  const digits = typeof cardNumber === 'string' ? cardNumber.replace(/[ -]/g, '') : '';
  if (!/^[0-9]+$/.test(digits) || digits.length < CARD_NUMBER_MIN_LENGTH || digits.length > CARD_NUMBER_MAX_LENGTH) {
    return '*'.repeat(digits.length);
  }
  const last = 4;
  const first = Math.min(6, digits.length - last - 4);
  return digits.slice(0, first) + '*'.repeat(digits.length - first - last) + digits.slice(-last);
}

/** Expiry years further ahead than this are refused as typing mistakes; issuers stay well within it. */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

/**
 * Why an expiry date was refused.
 * - `INVALID_MONTH`: not 1 to 12 (`'1'`, `'01'` and `1` are all January).
 * - `INVALID_YEAR`: not a 2- or 4-digit year.
 * - `EXPIRED`: the end of the expiry month is before `now`.
 * - `TOO_FAR_IN_FUTURE`: more than `MAX_EXPIRY_YEARS_AHEAD` years after `now`.
 */
export type ExpiryFailureReason = 'INVALID_MONTH' | 'INVALID_YEAR' | 'EXPIRED' | 'TOO_FAR_IN_FUTURE';

/** The outcome of `validateExpiry`: month 1–12 and the 4-digit year, or the reason. */
export type ExpiryResult = { ok: true; month: number; year: number } | { ok: false; reason: ExpiryFailureReason };

function parseMonth(month: string | number): number | null {
  if (typeof month === 'number') return Number.isInteger(month) && month >= 1 && month <= 12 ? month : null;
  if (typeof month !== 'string' || !/^[0-9]{1,2}$/.test(month.trim())) return null;
  const value = Number(month.trim());
  return value >= 1 && value <= 12 ? value : null;
}

function parseYear(year: string | number): number | null {
  // Two-digit years are read as 20yy: cards carry "MM/YY", and every card that can still be valid expires in
  // this century. A number below 100 is taken as such a two-digit year.
  if (typeof year === 'number') {
    if (!Number.isInteger(year) || year < 0) return null;
    if (year < 100) return 2000 + year;
    return year >= 1000 && year <= 9999 ? year : null;
  }
  if (typeof year !== 'string') return null;
  const text = year.trim();
  if (/^[0-9]{2}$/.test(text)) return 2000 + Number(text);
  if (/^[0-9]{4}$/.test(text)) return Number(text);
  return null;
}

/**
 * Validates a card's expiry month and year against `now`. A card is valid through the last moment of its
 * expiry month and expired from the first moment of the next one, both in UTC. UTC keeps the result
 * independent of the server's time zone; the price is that in Brazil (UTC−3) a card is treated as expired
 * from 21:00 local time on the last day of its month, which errs on the safe side, and the issuer has the last
 * word anyway.
 * @example validateExpiry('01', '2030', new Date('2026-01-15T00:00:00Z')) // { ok: true, month: 1, year: 2030 }
 * @example validateExpiry(12, 25, new Date('2026-01-01T00:00:00Z'))      // { ok: false, reason: 'EXPIRED' }
 */
export function validateExpiry(month: string | number, year: string | number, now: Date): ExpiryResult {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new RangeError('`now` must be a valid Date');
  const m = parseMonth(month);
  if (m === null) return { ok: false, reason: 'INVALID_MONTH' };
  const y = parseYear(year);
  if (y === null) return { ok: false, reason: 'INVALID_YEAR' };
  // The first instant of the month after the expiry month. setUTCFullYear is used rather than Date.UTC because
  // Date.UTC reads years 0–99 as 1900–1999; month `m` (1-based) is the 0-based index of the following month.
  const firstInstantAfter = new Date(0);
  firstInstantAfter.setUTCFullYear(y, m, 1);
  if (now.getTime() >= firstInstantAfter.getTime()) return { ok: false, reason: 'EXPIRED' };
  if (y > now.getUTCFullYear() + MAX_EXPIRY_YEARS_AHEAD) return { ok: false, reason: 'TOO_FAR_IN_FUTURE' };
  return { ok: true, month: m, year: y };
}
