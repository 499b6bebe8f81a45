/**
 * CLABE (Clave Bancaria Estandarizada), the 18-digit Mexican interbank account number that SPEI transfers are
 * addressed to; Colibri addresses SPEI payments to one and refunds OXXO, PAYNET and SPEI payments to one. Pure
 * functions, no I/O.
 *
 * Layout: 3 digits of bank code, 3 of plaza (the branch's city), 11 of account number, 1 check digit. The check
 * digit is computed by multiplying the first 17 digits by the weights 3, 7, 1, 3, 7, 1, …, keeping each product
 * modulo 10, summing, and taking (10 − sum mod 10) mod 10.
 *
 * Why not `stdnum`'s `mx/clabe`: its arithmetic is right, but it also refuses any CLABE whose bank code or plaza
 * code is missing from tables copied from Wikipedia in January 2017. Since then Banxico has admitted many SPEI
 * participants, among them Spin by OXXO (728) and Mercado Pago (722), whose customers are exactly the ones
 * paying at OXXO, so `stdnum` would refuse the refund accounts we most need. The bank code is returned to the
 * caller instead, to be checked against a registry that can be kept current.
 */

/**
 * Why a CLABE was refused.
 * - `INVALID_CHARACTERS`: something other than digits, spaces and hyphens.
 * - `INVALID_LENGTH`: not 18 digits.
 * - `INVALID_CHECK_DIGIT`: the last digit does not match the first 17.
 */
export type ClabeFailureReason = 'INVALID_CHARACTERS' | 'INVALID_LENGTH' | 'INVALID_CHECK_DIGIT';

/** The outcome: the 18 digits and the 3-digit bank code, or the reason. */
export type ClabeResult = { ok: true; value: string; bankCode: string } | { ok: false; reason: ClabeFailureReason };

const CLABE_LENGTH = 18;
const WEIGHTS = [3, 7, 1] as const;

/**
 * Computes the CLABE check digit of the first 17 digits.
 * @throws {RangeError} when the input is not exactly 17 ASCII digits.
 * @example computeClabeCheckDigit('03218000011835971') // 9
 */
export function computeClabeCheckDigit(first17: string): number {
  if (!/^\d{17}$/.test(first17)) throw new RangeError('A CLABE check digit is computed from exactly 17 digits');
  let sum = 0;
  for (let i = 0; i < first17.length; i += 1) {
    // The weights cycle, so the lookup always finds one; `?? 0` only satisfies noUncheckedIndexedAccess.
    const digit = first17.charCodeAt(i) - 48;
    const weight = WEIGHTS[i % WEIGHTS.length] ?? 0;
    sum += (digit * weight) % 10;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Validates a CLABE, allowing the spaces or hyphens it is often printed with (`032 180 00011835971 9`), and
 * returns the 18 digits with the bank code (the first three digits, e.g. `002` Banamex, `012` BBVA).
 * @example validateClabe('032180000118359719') // { ok: true, value: '032180000118359719', bankCode: '032' }
 * @example validateClabe('032180000118359718') // { ok: false, reason: 'INVALID_CHECK_DIGIT' }
 */
export function validateClabe(input: string): ClabeResult {
  if (typeof input !== 'string') return { ok: false, reason: 'INVALID_CHARACTERS' };
  const value = input.trim().replace(/[ -]/g, '');
  if (!/^\d*$/.test(value)) return { ok: false, reason: 'INVALID_CHARACTERS' };
  if (value.length !== CLABE_LENGTH) return { ok: false, reason: 'INVALID_LENGTH' };
  if (computeClabeCheckDigit(value.slice(0, 17)) !== Number(value[17])) {
    return { ok: false, reason: 'INVALID_CHECK_DIGIT' };
  }
  return { ok: true, value, bankCode: value.slice(0, 3) };
}

/**
 * The 3-digit bank code of a valid CLABE, or null when the CLABE is not valid.
 * @example clabeBankCode('002010077777777771') // '002'
 * @example clabeBankCode('12345')              // null
 */
export function clabeBankCode(input: string): string | null {
  const result = validateClabe(input);
  return result.ok ? result.bankCode : null;
}
