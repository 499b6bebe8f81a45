// Brazilian bank boleto ("bloqueto de cobrança", FEBRABAN layout): the 44-digit barcode, the 47-digit
// digitable line typed by payers, their check digits, and the due-date factor.
//
// Barcode (44 digits, positions 1-based):
//   1-3 bank code | 4 currency code (9 = real) | 5 general check digit (mod 11) | 6-9 due-date factor |
//   10-19 amount in cents | 20-44 free field (25 digits, laid out by each bank)
// Digitable line (47 digits), the barcode reordered into five fields:
//   field 1: barcode 1-4 + 20-24 + mod-10 digit | field 2: barcode 25-34 + mod-10 digit |
//   field 3: barcode 35-44 + mod-10 digit | field 4: the general check digit | field 5: barcode 6-19

import { addDays, daysBetween, toEpochDay } from '../calendar/business-days';
import type { IsoDate } from '../calendar/business-days';

/** Thrown for input that cannot make a boleto, or a barcode or line that is not a valid one. */
export class BoletoError extends Error {
  override name = 'BoletoError';
}

/** What goes into a barcode. */
export interface BoletoBarcodeInput {
  /** The bank's 3-digit compensation code, e.g. '001'. */
  readonly bankCode: string;
  /** 'YYYY-MM-DD', or null for a boleto without due date (factor 0000). */
  readonly dueDate: IsoDate | null;
  /** Amount in cents, 0 to 9,999,999,999 (ten digits); 0 leaves the amount for the payer to fill in. */
  readonly amountCents: bigint | number;
  /** The bank's 25-digit free field. */
  readonly freeField: string;
}

/** The contents of a valid barcode or digitable line. */
export interface ParsedBoleto {
  readonly barcode: string;
  readonly digitableLine: string;
  readonly bankCode: string;
  readonly currencyCode: string;
  readonly checkDigit: string;
  readonly dueDateFactor: string;
  /** Null when the factor is 0000 (no due date). */
  readonly dueDate: IsoDate | null;
  readonly amountCents: bigint;
  readonly freeField: string;
}

/** The result of `validateDigitableLine`. */
export type DigitableLineValidation =
  | { readonly valid: true; readonly barcode: string }
  | { readonly valid: false; readonly errors: readonly string[] };

const FACTOR_BASE_DATE = '1997-10-07';
// The factor counts days from the base date up to 9999 (reached on 2025-02-21); from 2025-02-22 it starts
// again at 1000, so every later cycle is 9000 days long and factor f means base + f + 9000k days.
const FACTOR_CYCLE_DAYS = 9000;
const MIN_FACTOR = 1000;
const MAX_TEN_DIGITS = 9_999_999_999n;
const CURRENCY_REAL = '9';

/**
 * The due-date factor of a date: days since 1997-10-07 while that stays within 1000-9999 (3 July 2000 to
 * 21 February 2025), then restarting at 1000 on 22 February 2025, and again every 9000 days.
 *
 * @example
 * dueDateFactor('2025-02-21'); // '9999'
 * dueDateFactor('2025-02-22'); // '1000'
 */
export function dueDateFactor(dueDate: IsoDate): string {
  const days = daysBetween(FACTOR_BASE_DATE, dueDate);
  if (days < MIN_FACTOR) {
    throw new BoletoError(`Due dates before 2000-07-03 have no factor, got ${dueDate}`);
  }
  return String(MIN_FACTOR + ((days - MIN_FACTOR) % FACTOR_CYCLE_DAYS));
}

/**
 * The due date a factor stands for. A factor repeats every 9000 days since the 2025 restart, so it is read as
 * the candidate date nearest to `referenceDate` (normally today): that is right for any boleto due within
 * about twelve years either side of it. Returns null for factor 0000 (no due date).
 *
 * @example
 * dueDateFromFactor('1000', '2025-06-01'); // '2025-02-22'
 * dueDateFromFactor('1000', '2001-01-01'); // '2000-07-03'
 */
export function dueDateFromFactor(factor: string, referenceDate: IsoDate): IsoDate | null {
  if (factor === '0000') return null;
  if (!/^\d{4}$/.test(factor) || Number(factor) < MIN_FACTOR) {
    throw new BoletoError(`A due-date factor is 0000 or 1000-9999, got ${JSON.stringify(factor)}`);
  }
  const first = toEpochDay(FACTOR_BASE_DATE) + Number(factor);
  const reference = toEpochDay(referenceDate);
  const cycles = Math.max(0, Math.round((reference - first) / FACTOR_CYCLE_DAYS));
  return addDays(FACTOR_BASE_DATE, Number(factor) + cycles * FACTOR_CYCLE_DAYS);
}

/**
 * Module-10 check digit of a digitable-line field: digits weighted 2, 1, 2, ... from the right, the digits of
 * each product added up, and the result is what brings the sum to the next multiple of ten.
 *
 * @example
 * mod10CheckDigit('001905009'); // 5
 */
export function mod10CheckDigit(digits: string): number {
  assertDigits(digits, 'digits');
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product; // the sum of the two digits of 10..18
    weight = weight === 2 ? 1 : 2;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * The barcode's general check digit (position 5), from its other 43 digits: weights 2 to 9 repeating from
 * the right, then 11 minus the remainder mod 11, where 0, 10 and 11 become 1.
 *
 * @example
 * generalCheckDigit('0019373700000001000500940144816060680935031'); // 3
 */
export function generalCheckDigit(digits43: string): number {
  assertDigits(digits43, 'digits');
  if (digits43.length !== 43) throw new BoletoError(`Expected 43 digits, got ${digits43.length}`);
  let sum = 0;
  let weight = 2;
  for (let i = digits43.length - 1; i >= 0; i -= 1) {
    sum += Number(digits43[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 0 || digit === 10 || digit === 11 ? 1 : digit;
}

/**
 * Builds the 44-digit barcode.
 *
 * @example
 * buildBarcode({ bankCode: '001', dueDate: '2007-12-31', amountCents: 100n, freeField: '0500940144816060680935031' });
 * // '00193373700000001000500940144816060680935031'
 */
export function buildBarcode(input: BoletoBarcodeInput): string {
  if (!/^\d{3}$/.test(input.bankCode)) throw new BoletoError(`bankCode must be 3 digits, got ${input.bankCode}`);
  if (!/^\d{25}$/.test(input.freeField)) throw new BoletoError('freeField must be 25 digits');
  const factor = input.dueDate === null ? '0000' : dueDateFactor(input.dueDate);
  const amount = toBoundedInteger(input.amountCents, 'amountCents').toString().padStart(10, '0');
  const rest = factor + amount + input.freeField;
  const head = input.bankCode + CURRENCY_REAL;
  return head + String(generalCheckDigit(head + rest)) + rest;
}

/**
 * Tells whether a string is 44 digits with a correct general check digit.
 *
 * @example
 * isValidBarcode('00193373700000001000500940144816060680935031'); // true
 */
export function isValidBarcode(barcode: string): boolean {
  return (
    /^\d{44}$/.test(barcode) && generalCheckDigit(barcode.slice(0, 4) + barcode.slice(5)) === Number(barcode[4])
  );
}

/**
 * Converts a barcode to its 47-digit digitable line (without formatting; see `formatDigitableLine`).
 *
 * @example
 * barcodeToDigitableLine('00193373700000001000500940144816060680935031');
 * // '00190500954014481606906809350314337370000000100'
 */
export function barcodeToDigitableLine(barcode: string): string {
  if (!isValidBarcode(barcode)) throw new BoletoError('Not a valid 44-digit boleto barcode');
  const field1 = barcode.slice(0, 4) + barcode.slice(19, 24);
  const field2 = barcode.slice(24, 34);
  const field3 = barcode.slice(34, 44);
  return (
    field1 +
    String(mod10CheckDigit(field1)) +
    field2 +
    String(mod10CheckDigit(field2)) +
    field3 +
    String(mod10CheckDigit(field3)) +
    barcode[4] +
    barcode.slice(5, 19)
  );
}

/**
 * Checks a digitable line, formatted or not: 47 digits, the three field check digits, and the general
 * check digit of the barcode it stands for. Lists every problem found.
 *
 * @example
 * validateDigitableLine('00190.50095 40144.816069 06809.350314 3 37370000000100');
 * // { valid: true, barcode: '00193373700000001000500940144816060680935031' }
 */
export function validateDigitableLine(line: string): DigitableLineValidation {
  const digits = stripFormatting(line);
  if (!/^\d{47}$/.test(digits)) {
    return { valid: false, errors: ['A digitable line has 47 digits (dots and spaces aside)'] };
  }
  const errors: string[] = [];
  const fields: Array<[string, number, number]> = [
    ['field 1', 0, 9],
    ['field 2', 10, 20],
    ['field 3', 21, 31],
  ];
  for (const [name, start, checkAt] of fields) {
    if (mod10CheckDigit(digits.slice(start, checkAt)) !== Number(digits[checkAt])) {
      errors.push(`Wrong check digit in ${name}`);
    }
  }
  const barcode = lineDigitsToBarcode(digits);
  if (!isValidBarcode(barcode)) errors.push('Wrong general check digit (field 4)');
  return errors.length === 0 ? { valid: true, barcode } : { valid: false, errors };
}

/**
 * Tells whether a digitable line (formatted or not) is valid; see `validateDigitableLine`.
 *
 * @example
 * isValidDigitableLine('00190.50095 40144.816069 06809.350314 3 37370000000100'); // true
 */
export function isValidDigitableLine(line: string): boolean {
  return validateDigitableLine(line).valid;
}

/**
 * Converts a digitable line (formatted or not) back to its barcode, after checking every check digit.
 *
 * @example
 * digitableLineToBarcode('00190.50095 40144.816069 06809.350314 3 37370000000100');
 * // '00193373700000001000500940144816060680935031'
 */
export function digitableLineToBarcode(line: string): string {
  const result = validateDigitableLine(line);
  if (!result.valid) throw new BoletoError(result.errors.join('; '));
  return result.barcode;
}

/**
 * Writes a valid digitable line the way boletos print it: 'AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE'.
 *
 * @example
 * formatDigitableLine('00190500954014481606906809350314337370000000100');
 * // '00190.50095 40144.816069 06809.350314 3 37370000000100'
 */
export function formatDigitableLine(line: string): string {
  const result = validateDigitableLine(line);
  if (!result.valid) throw new BoletoError(result.errors.join('; '));
  const d = stripFormatting(line);
  return (
    `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ` +
    `${d.slice(21, 26)}.${d.slice(26, 32)} ${d.slice(32, 33)} ${d.slice(33)}`
  );
}

/**
 * Reads a barcode (44 digits) or a digitable line (47 digits, formatted or not), checking every check digit.
 * `referenceDate` (normally today) picks the factor's cycle; see `dueDateFromFactor`.
 *
 * @example
 * parseBoleto('00190.50095 40144.816069 06809.350314 3 37370000000100', '2007-12-01');
 * // { bankCode: '001', dueDate: '2007-12-31', amountCents: 100n, ... }
 */
export function parseBoleto(codeOrLine: string, referenceDate: IsoDate): ParsedBoleto {
  const digits = stripFormatting(codeOrLine);
  let barcode: string;
  if (/^\d{44}$/.test(digits)) {
    if (!isValidBarcode(digits)) throw new BoletoError('Wrong general check digit in the barcode');
    barcode = digits;
  } else {
    barcode = digitableLineToBarcode(codeOrLine);
  }
  const factor = barcode.slice(5, 9);
  if (factor !== '0000' && Number(factor) < MIN_FACTOR) {
    throw new BoletoError(`Due-date factor ${factor} is not in use (0000 or 1000-9999)`);
  }
  return {
    barcode,
    digitableLine: barcodeToDigitableLine(barcode),
    bankCode: barcode.slice(0, 3),
    currencyCode: barcode.slice(3, 4),
    checkDigit: barcode.slice(4, 5),
    dueDateFactor: factor,
    dueDate: dueDateFromFactor(factor, referenceDate),
    amountCents: BigInt(barcode.slice(9, 19)),
    freeField: barcode.slice(19),
  };
}

// ----- Sandbox bank -------------------------------------------------------------------------------------

/** Bank code used for sandbox boletos. */
export const SANDBOX_BANK_CODE = '001';

/** Input of the sandbox free field. */
export interface SandboxFreeFieldInput {
  /** 7-digit agreement number ("convênio") the sandbox bank assigned to the merchant. */
  readonly agreement: string;
  /** Sequence number of the boleto within the agreement, 0 to 9,999,999,999. */
  readonly sequence: bigint | number;
  /** 2-digit portfolio ("carteira"); defaults to '17'. */
  readonly portfolio?: string;
}

/** The sandbox free field and the "nosso número" (the bank's id of the boleto) it encodes. */
export interface SandboxFreeField {
  readonly freeField: string;
  /** Agreement followed by the 10-digit sequence: 17 digits. */
  readonly nossoNumero: string;
}

/**
 * Builds the free field of the SANDBOX bank: six zeros, the 7-digit agreement, the 10-digit sequence and the
 * 2-digit portfolio. This mirrors the shape of Banco do Brasil's layout for 7-digit agreements (whose
 * "nosso número" is agreement + sequence), but it is a simulation: no bank has assigned these agreements,
 * the boletos are not registered anywhere, and a real bank's free field must come from its own manual.
 *
 * @example
 * buildSandboxFreeField({ agreement: '1234567', sequence: 42n });
 * // { freeField: '0000001234567000000004217', nossoNumero: '12345670000000042' }
 */
export function buildSandboxFreeField(input: SandboxFreeFieldInput): SandboxFreeField {
  if (!/^\d{7}$/.test(input.agreement)) throw new BoletoError('agreement must be 7 digits');
  const portfolio = input.portfolio ?? '17';
  if (!/^\d{2}$/.test(portfolio)) throw new BoletoError('portfolio must be 2 digits');
  const sequence = toBoundedInteger(input.sequence, 'sequence').toString().padStart(10, '0');
  return { freeField: `000000${input.agreement}${sequence}${portfolio}`, nossoNumero: input.agreement + sequence };
}

/**
 * Reads a sandbox free field back, or returns null when the field does not have the sandbox layout.
 *
 * @example
 * readSandboxFreeField('0000001234567000000004217');
 * // { agreement: '1234567', sequence: 42n, portfolio: '17', nossoNumero: '12345670000000042' }
 */
export function readSandboxFreeField(
  freeField: string,
): { agreement: string; sequence: bigint; portfolio: string; nossoNumero: string } | null {
  const match = /^000000(\d{7})(\d{10})(\d{2})$/.exec(freeField);
  if (!match) return null;
  const [, agreement = '', sequence = '', portfolio = ''] = match;
  return { agreement, sequence: BigInt(sequence), portfolio, nossoNumero: agreement + sequence };
}

/** A complete sandbox boleto: every representation the pages and the API need. */
export interface SandboxBoleto {
  readonly barcode: string;
  readonly digitableLine: string;
  readonly formattedDigitableLine: string;
  readonly nossoNumero: string;
}

/**
 * Builds a complete SANDBOX boleto (bank `SANDBOX_BANK_CODE`, free field from `buildSandboxFreeField`).
 *
 * @example
 * buildSandboxBoleto({ agreement: '1234567', sequence: 42n, dueDate: '2026-03-10', amountCents: 15990n })
 *   .formattedDigitableLine; // '00190.00009 01234.567004 00000.042176 2 13810000015990'
 */
export function buildSandboxBoleto(
  input: SandboxFreeFieldInput & { readonly dueDate: IsoDate | null; readonly amountCents: bigint | number },
): SandboxBoleto {
  const { freeField, nossoNumero } = buildSandboxFreeField(input);
  const barcode = buildBarcode({
    bankCode: SANDBOX_BANK_CODE,
    dueDate: input.dueDate,
    amountCents: input.amountCents,
    freeField,
  });
  const digitableLine = barcodeToDigitableLine(barcode);
  return { barcode, digitableLine, formattedDigitableLine: formatDigitableLine(digitableLine), nossoNumero };
}

// ----- helpers ------------------------------------------------------------------------------------------

function lineDigitsToBarcode(d: string): string {
  return d.slice(0, 4) + d.slice(32, 33) + d.slice(33, 47) + d.slice(4, 9) + d.slice(10, 20) + d.slice(21, 31);
}

function stripFormatting(text: string): string {
  // Payers paste lines with the printed dots and spaces (and sometimes line breaks); nothing else is dropped,
  // so a letter or a stray symbol still makes the input invalid.
  return text.replace(/[\s.]/g, '');
}

function assertDigits(digits: string, name: string): void {
  if (!/^\d+$/.test(digits)) throw new BoletoError(`${name} must be decimal digits`);
}

// Amounts and sequences both fill ten digits. Numbers are accepted only as safe integers so that a float
// (such as 10.5 reais passed where cents were meant) is refused rather than rounded.
function toBoundedInteger(value: bigint | number, name: string): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new BoletoError(`${name} must be an integer, got ${value}`);
  }
  if (typeof value !== 'number' && typeof value !== 'bigint') {
    throw new BoletoError(`${name} must be a bigint or an integer number`);
  }
  const n = BigInt(value);
  if (n < 0n || n > MAX_TEN_DIGITS) throw new BoletoError(`${name} must be from 0 to ${MAX_TEN_DIGITS}, got ${n}`);
  return n;
}
