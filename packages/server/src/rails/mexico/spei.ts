/**
 * SPEI collection: each SPEI payment gets its own receiving CLABE, so an incoming transfer names the payment
 * it pays without the payer typing a reference. Pure functions, no I/O.
 */
import { computeClabeCheckDigit } from './clabe';

/**
 * The sandbox's receiving bank and plaza: 646 is the SPEI participant that payment services commonly
 * collect through, 180 the Mexico City plaza. A real deployment takes both from its acquirer.
 */
export const SANDBOX_SPEI_BANK_CODE = '646';
export const SANDBOX_SPEI_PLAZA = '180';

/**
 * The receiving CLABE of the `sequence`th SPEI payment: bank, plaza, an 11-digit account from the
 * sequence and the CLABE check digit.
 * @throws {RangeError} when the sequence is not a positive integer of at most 11 digits.
 * @example speiReceivingClabe(1n) // '646180000000000012'
 */
export function speiReceivingClabe(sequence: bigint): string {
  if (sequence < 1n || sequence >= 10n ** 11n) throw new RangeError('The SPEI sequence must be 1 to 11 digits');
  const first17 = SANDBOX_SPEI_BANK_CODE + SANDBOX_SPEI_PLAZA + sequence.toString().padStart(11, '0');
  return first17 + String(computeClabeCheckDigit(first17));
}
