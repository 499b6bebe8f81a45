import { randomBytes, randomUUID } from 'node:crypto';

/**
 * The simulated 3DS directory server and access control server (ACS) of sandbox mode. A real
 * directory server routes an authentication to the card issuer's ACS, which answers frictionless,
 * asks for a challenge, or refuses; here the card number decides, per the contract's test cards, so
 * merchants can walk every outcome of the library. Any other card authenticates frictionless.
 */

/** What the issuer answers for a card. */
export type EnrolmentOutcome = 'FRICTIONLESS' | 'CHALLENGE' | 'UNENROLLED' | 'NOT_ALLOWED' | 'ERROR';

/** The contract's 3DS test cards (docs/3ds.md). */
export const THREE_DS_TEST_CARDS: Readonly<Record<string, EnrolmentOutcome>> = {
  '4000000000002701': 'FRICTIONLESS',
  '4000000000002503': 'CHALLENGE',
  '4000000000002420': 'UNENROLLED',
  '4000000000002370': 'NOT_ALLOWED',
  '4000000000002644': 'ERROR',
};

/** The one-time code the simulated issuer accepts in its challenge. */
export const CHALLENGE_PASS_CODE = '123456';

/** The 3DS protocol version the simulator speaks. */
export const THREE_DS_VERSION = '2.2.0';

/**
 * The issuer's answer for a card number.
 * @example lookUpEnrolment('4000000000002503') // 'CHALLENGE'
 */
export function lookUpEnrolment(cardNumber: string): EnrolmentOutcome {
  return THREE_DS_TEST_CARDS[cardNumber] ?? 'FRICTIONLESS';
}

/** The proof of a successful authentication that the payment carries to the processor. */
export interface AuthenticationValue {
  readonly eci: string;
  readonly cavv: string;
  readonly version: string;
}

/**
 * Issues the ACS's proof of authentication: the ECI of a fully authenticated transaction for the
 * scheme (Mastercard 02, the others 05) and a fresh 20-byte CAVV, base64 as the schemes send it.
 * @example issueAuthenticationValue('VISA') // { eci: '05', cavv: 'q2w…=', version: '2.2.0' }
 */
export function issueAuthenticationValue(scheme: string): AuthenticationValue {
  return { eci: scheme === 'MASTER' ? '02' : '05', cavv: randomBytes(20).toString('base64'), version: THREE_DS_VERSION };
}

/** A directory-server transaction id, as the directory server assigns one per authentication. @example newDsTransactionId() */
export function newDsTransactionId(): string {
  return randomUUID();
}
