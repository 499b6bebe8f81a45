import { ownEntry } from '../lib/own-entry';

/**
 * What a 3DS authentication's ECI (Electronic Commerce Indicator) says, per card scheme, as the
 * schemes define it and acquirers read it. Mastercard (and its debit brand) writes 02 for a cardholder
 * the issuer authenticated, 01 for an attempt (the issuer or its directory could not authenticate, and
 * the attempt itself was recorded) and 00 for none; Visa and the other schemes Colibri processes (Elo,
 * American Express, Diners Club, Discover, JCB) write 05, 06 and 07.
 *
 * The outcome decides who bears a fraud chargeback (the liability shift) and, in the sandbox, what the
 * simulated acquirer answers (sandbox-simulator.ts); a connector passes it on (Adyen's mpiData).
 */
export type EciOutcome = 'AUTHENTICATED' | 'ATTEMPTED' | 'NOT_AUTHENTICATED';

const MASTERCARD_ECI: Readonly<Record<string, EciOutcome>> = { '02': 'AUTHENTICATED', '01': 'ATTEMPTED', '00': 'NOT_AUTHENTICATED' };
const VISA_ECI: Readonly<Record<string, EciOutcome>> = { '05': 'AUTHENTICATED', '06': 'ATTEMPTED', '07': 'NOT_AUTHENTICATED' };

/** The ECI values a scheme defines, with their outcomes. @example eciValuesOf('MASTER') // { '02': 'AUTHENTICATED', … } */
export function eciValuesOf(scheme: string | null | undefined): Readonly<Record<string, EciOutcome>> {
  return scheme === 'MASTER' ? MASTERCARD_ECI : VISA_ECI;
}

/**
 * The outcome of an ECI, whichever scheme wrote it (the two sets do not overlap), or null for a value
 * no scheme defines (`constructor`, which every object inherits, included).
 * @example eciOutcome('06') // 'ATTEMPTED'
 */
export function eciOutcome(eci: string): EciOutcome | null {
  return ownEntry(MASTERCARD_ECI, eci) ?? ownEntry(VISA_ECI, eci) ?? null;
}

/** The note transaction details show for an outcome: who bears a fraud chargeback. */
export const ECI_NOTES: Readonly<Record<EciOutcome, string>> = {
  AUTHENTICATED: 'The issuer authenticated the cardholder: liability for fraud chargebacks shifts to the issuer.',
  ATTEMPTED: 'Authentication was attempted but not completed by the issuer: the payment was approved, and liability shifts only where the scheme grants it for attempts; the merchant may bear fraud chargebacks.',
  NOT_AUTHENTICATED: 'The cardholder was not authenticated: no liability shift.',
};
