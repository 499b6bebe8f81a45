/**
 * Brazilian tax identifiers: the CPF (Cadastro de Pessoas Físicas, 11 digits, natural persons) and the CNPJ
 * (Cadastro Nacional da Pessoa Jurídica, 14 characters, legal entities). Pure functions, no I/O.
 *
 * Both carry two mod-11 check digits. From July 2026 the Receita Federal also issues alphanumeric CNPJs: the
 * first 12 positions may be A-Z or 0-9, the last two stay numeric check digits, and each character counts as
 * its ASCII code minus 48 (so '0'..'9' keep their values and 'A' = 17 … 'Z' = 42) with the same weights as
 * before. Numeric CNPJs remain valid forever, and they are simply the all-digit case of the same rule.
 *
 * Why the check digits come from `stdnum` and the rest is ours: `stdnum`'s `br/cpf` and `br/cnpj` (1.12) compute
 * the check digits correctly, including the alphanumeric CNPJ (its `charValue` is ASCII minus 48 and its weights
 * are 2..9 cycling from the right, which is the Receita's 5,4,3,2,9,8,7,6,5,4,3,2 / 6,5,4,…,2 sequence); the tests
 * cross-check it against an independent implementation on thousands of generated numbers. It is not right on its
 * own, though, for three reasons, so this module normalises and screens the input before handing it over:
 * - it accepts the all-same-digit numbers (`111.111.111-11`, `00.000.000/0000-00`…), which pass the mod-11
 *   arithmetic but are never issued and are the classic placeholder typed into forms;
 * - its cleaning maps Unicode look-alikes (full-width digits, en dashes, middle dots…) to ASCII and deletes them,
 *   and upper-cases with `toLocaleUpperCase()`, whose result depends on the server's locale (`ß` becomes `SS`);
 *   we prefer to accept only ASCII characters and a known set of separators, so what we store is what was sent;
 * - its failures are exception classes, not the stable reason codes our API reports.
 */
// The Brazilian validators are imported from their own module rather than the package root: the root index
// loads the validators of every country (about half a second at start-up), this one loads two files. The
// package has no "exports" map, so this path is public; if a future version adds one, the tests fail at import.
import { cnpj as stdnumCnpj, cpf as stdnumCpf } from 'stdnum/lib/cjs/br/index.js';

/** The two kinds of Brazilian tax identifier. */
export type TaxIdType = 'CPF' | 'CNPJ';

/**
 * Why a tax identifier was refused.
 * - `INVALID_CHARACTERS`: a character that is neither allowed in the number nor an accepted separator.
 * - `INVALID_LENGTH`: not 11 (CPF) or 14 (CNPJ) characters once separators are removed.
 * - `INVALID_FORMAT`: a letter where only a digit may stand (the two CNPJ check digits).
 * - `REPEATED_DIGITS`: every digit the same; such numbers satisfy the check digits but are never issued.
 * - `INVALID_CHECK_DIGITS`: the two check digits do not match the rest of the number.
 */
export type TaxIdFailureReason =
  | 'INVALID_CHARACTERS'
  | 'INVALID_LENGTH'
  | 'INVALID_FORMAT'
  | 'REPEATED_DIGITS'
  | 'INVALID_CHECK_DIGITS';

/** The outcome of a validation: the compact form (no punctuation, letters upper-case) or the reason. */
export type TaxIdResult = { ok: true; value: string } | { ok: false; reason: TaxIdFailureReason };

const CPF_LENGTH = 11;
const CNPJ_LENGTH = 14;

// Separators people type: the official masks use '.', '-' and '/', and spaces appear when numbers are copied
// from PDFs or grouped by hand. Anything else (letters in a CPF, commas, Unicode look-alikes) is refused rather
// than guessed at.
const CPF_ALLOWED = /^[0-9. -]*$/;
const CNPJ_ALLOWED = /^[0-9A-Za-z./ -]*$/;
const SEPARATORS = /[./ -]/g;

function checkDigitsFailure(error: Error | undefined): TaxIdFailureReason {
  // The input is screened before stdnum sees it, so a checksum mismatch is the only failure it can report;
  // anything else would be a change in the library, reported conservatively as a format problem.
  return error?.name === 'InvalidChecksum' ? 'INVALID_CHECK_DIGITS' : 'INVALID_FORMAT';
}

/**
 * Validates a CPF, with or without its punctuation (`123.456.789-09` or `12345678909`), and returns it in the
 * compact 11-digit form.
 * @example validateCpf('123.456.789-09') // { ok: true, value: '12345678909' }
 * @example validateCpf('111.111.111-11') // { ok: false, reason: 'REPEATED_DIGITS' }
 */
export function validateCpf(input: string): TaxIdResult {
  if (typeof input !== 'string') return { ok: false, reason: 'INVALID_CHARACTERS' };
  const trimmed = input.trim();
  if (!CPF_ALLOWED.test(trimmed)) return { ok: false, reason: 'INVALID_CHARACTERS' };
  const value = trimmed.replace(SEPARATORS, '');
  if (value.length !== CPF_LENGTH) return { ok: false, reason: 'INVALID_LENGTH' };
  if (/^(\d)\1*$/.test(value)) return { ok: false, reason: 'REPEATED_DIGITS' };
  const checked = stdnumCpf.validate(value);
  if (!checked.isValid) return { ok: false, reason: checkDigitsFailure(checked.error) };
  return { ok: true, value };
}

/**
 * Validates a CNPJ, numeric or alphanumeric, with or without its punctuation (`11.222.333/0001-81`,
 * `12.ABC.345/01DE-35`), and returns it in the compact 14-character form. Lower-case letters are accepted and
 * upper-cased, because the Receita's alphabet is upper-case only and the check digits are computed on it.
 * @example validateCnpj('12.ABC.345/01DE-35') // { ok: true, value: '12ABC34501DE35' }
 * @example validateCnpj('11.222.333/0001-82') // { ok: false, reason: 'INVALID_CHECK_DIGITS' }
 */
export function validateCnpj(input: string): TaxIdResult {
  if (typeof input !== 'string') return { ok: false, reason: 'INVALID_CHARACTERS' };
  const trimmed = input.trim();
  if (!CNPJ_ALLOWED.test(trimmed)) return { ok: false, reason: 'INVALID_CHARACTERS' };
  const value = trimmed.replace(SEPARATORS, '').toUpperCase();
  if (value.length !== CNPJ_LENGTH) return { ok: false, reason: 'INVALID_LENGTH' };
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(value)) return { ok: false, reason: 'INVALID_FORMAT' };
  // Only an all-digit number can be "all the same digit", since the check digits are always numeric.
  if (/^(\d)\1*$/.test(value)) return { ok: false, reason: 'REPEATED_DIGITS' };
  const checked = stdnumCnpj.validate(value);
  if (!checked.isValid) return { ok: false, reason: checkDigitsFailure(checked.error) };
  return { ok: true, value };
}

/**
 * Validates a CPF or a CNPJ, chosen by `type`.
 * @example validateTaxId('CNPJ', '11222333000181') // { ok: true, value: '11222333000181' }
 * @example validateTaxId('CPF', '11222333000181')  // { ok: false, reason: 'INVALID_LENGTH' }
 */
export function validateTaxId(type: TaxIdType, input: string): TaxIdResult {
  return type === 'CPF' ? validateCpf(input) : validateCnpj(input);
}

/**
 * Masks a CPF or CNPJ for display, logs and API output.
 *
 * CPF: `***.456.789-**`, the middle six digits shown, the first three and the two check digits hidden. This is
 * the pattern the Brazilian federal government publishes CPFs in (Portal da Transparência, Diário Oficial) under
 * the data-protection law (LGPD), so Brazilian users recognise it, and it keeps enough to tell two customers apart
 * in a support conversation without exposing the number.
 *
 * CNPJ: `**.ABC.345/****-**`, the same idea: six characters of the middle of the company root shown, the first
 * two, the branch and the check digits hidden. A CNPJ is public for most companies, but a sole trader's (MEI)
 * CNPJ leads straight to a person, so it is treated like personal data.
 *
 * The value may be given with or without punctuation; check digits are not verified, because masking must also
 * work on stored values. If the value does not have the shape of the type at all, every position is masked, so
 * a malformed value never leaks.
 * @example maskTaxId('CPF', '123.456.789-09')      // '***.456.789-**'
 * @example maskTaxId('CNPJ', '12ABC34501DE35')     // '**.ABC.345/****-**'
 */
export function maskTaxId(type: TaxIdType, value: string): string {
  const compact = typeof value === 'string' ? value.trim().replace(SEPARATORS, '').toUpperCase() : '';
  if (type === 'CPF') {
    if (!/^\d{11}$/.test(compact)) return '***.***.***-**';
    return `***.${compact.slice(3, 6)}.${compact.slice(6, 9)}-**`;
  }
  if (!/^[0-9A-Z]{12}\d{2}$/.test(compact)) return '**.***.***/****-**';
  return `**.${compact.slice(2, 5)}.${compact.slice(5, 8)}/****-**`;
}
