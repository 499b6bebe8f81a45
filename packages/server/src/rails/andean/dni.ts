/**
 * Peruvian DNI (Documento Nacional de Identidad) number: exactly eight digits.
 *
 * stdnum's `pe/cui` is not used: it also accepts a ninth check character (printed on the card but not
 * part of the number), and the payout interface requires the DNI to be exactly eight characters.
 */

/** The length of a DNI number. */
export const DNI_LENGTH = 8;

/**
 * Whether a string is a DNI number: exactly eight ASCII digits, leading zeros included.
 * @example isValidDni('04567890')  // true
 * @example isValidDni('045678901') // false
 */
export function isValidDni(input: string): boolean {
  return /^\d{8}$/.test(input);
}
