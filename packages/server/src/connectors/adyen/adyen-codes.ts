import { ownEntry } from '../../lib/own-entry';
import { declined, failed, OUTCOME_CODES, type OutcomeCode } from '../../processor/outcome-codes';
import type { KnownOutcome } from '../connector';

/**
 * Adyen's vocabulary translated into Colibri's. These tables are the whole of the translation; they are
 * printed in docs/connectors.md and a test sends every entry through the connector.
 */

/** What each `resultCode` of `POST /payments` means for Colibri. "REASON" means: look up refusalReasonCode. */
export const ADYEN_RESULT_CODES: Readonly<Record<string, 'APPROVED' | 'PENDING' | 'REASON' | OutcomeCode>> = {
  Authorised: 'APPROVED',
  Refused: 'REASON',
  Error: '96',
  Cancelled: 'CANCELED',
  Received: 'PENDING',
  Pending: 'PENDING',
  PresentToShopper: 'PENDING',
  // Colibri sends its own 3DS data (mpiData) and card-on-file payments; an issuer that still asks for
  // a shopper action cannot be served asynchronously, so the payment is refused as unauthenticated.
  RedirectShopper: 'AUTHENTICATION_FAILED',
  IdentifyShopper: 'AUTHENTICATION_FAILED',
  ChallengeShopper: 'AUTHENTICATION_FAILED',
  // Partial authorisation is never requested; if it happens anyway the payment is not taken.
  PartiallyAuthorised: 'UNEXPECTED_RESULT',
  AuthenticationFinished: 'UNEXPECTED_RESULT',
  AuthenticationNotRequired: 'UNEXPECTED_RESULT',
  Success: 'UNEXPECTED_RESULT',
};

/** Adyen's `refusalReasonCode` (docs.adyen.com, "Refusal reasons") → Colibri's refusal code. */
export const ADYEN_REFUSAL_REASONS: Readonly<Record<string, OutcomeCode>> = {
  '2': '05', // Refused
  '3': '01', // Referral
  '4': '96', // Acquirer Error
  '5': '43', // Blocked Card
  '6': '54', // Expired Card
  '7': '13', // Invalid Amount
  '8': '14', // Invalid Card Number
  '9': '91', // Issuer Unavailable
  '10': 'NOT_SUPPORTED', // Not supported
  '11': 'AUTHENTICATION_FAILED', // 3D Not Authenticated
  '12': '51', // Not enough balance
  '14': '59', // Acquirer Fraud
  '15': 'CANCELED', // Cancelled
  '16': 'CANCELED', // Shopper Cancelled
  '17': '55', // Invalid Pin
  '18': '75', // Pin tries exceeded
  '19': '55', // Pin validation not possible
  '20': '59', // FRAUD
  '21': '96', // Not Submitted
  '22': '59', // FRAUD-CANCELLED
  '23': '57', // Transaction Not Permitted
  '24': 'N7', // CVC Declined
  '25': '62', // Restricted Card
  '26': 'R1', // Revocation Of Auth
  '27': '05', // Declined Non Generic
  '28': '61', // Withdrawal amount exceeded
  '29': '65', // Withdrawal count exceeded
  '31': '59', // Issuer Suspected Fraud
  '32': '05', // AVS Declined
  '33': '55', // Card requires online pin
  '34': '57', // No checking account available on Card
  '35': '57', // No savings account available on Card
  '36': '55', // Mobile pin required
  '37': '05', // Contactless fallback
  '38': 'AUTHENTICATION_FAILED', // Authentication required
  '39': 'AUTHENTICATION_FAILED', // RReq not received from DS
  '40': '05', // Current AID is in Penalty Box
  '41': '05', // CVM Required Restart Payment
  '42': 'AUTHENTICATION_FAILED', // 3DS Authentication Error
  '43': '55', // Online PIN required
  '44': '05', // Transaction blocked by Adyen to prevent excessive retry fees
};

/** Codes that are the processor's failure rather than the issuer's refusal: the payment ends ERROR. */
const FAILURE_CODES: ReadonlySet<OutcomeCode> = new Set<OutcomeCode>(['96', 'UNEXPECTED_RESULT']);

function outcomeOf(code: OutcomeCode): KnownOutcome {
  return FAILURE_CODES.has(code) ? failed(code) : declined(code);
}

/**
 * The outcome of a `POST /payments` answer.
 * @example translatePayment({ resultCode: 'Refused', refusalReasonCode: '12', pspReference: 'X' }) // DECLINED 51
 */
export function translatePayment(response: { resultCode?: string | undefined; refusalReasonCode?: string | undefined; pspReference?: string | undefined }): KnownOutcome {
  // Adyen's words are looked up among the tables' own: a code such as `constructor` is one Colibri does not know.
  const mapped = ownEntry(ADYEN_RESULT_CODES, response.resultCode ?? '') ?? 'UNEXPECTED_RESULT';
  const processorId = response.pspReference ?? '';
  if (mapped === 'APPROVED') return { status: 'APPROVED', processorId };
  if (mapped === 'PENDING') return { status: 'PENDING', processorId };
  if (mapped === 'REASON') return outcomeOf(ownEntry(ADYEN_REFUSAL_REASONS, response.refusalReasonCode ?? '') ?? '05');
  return outcomeOf(mapped);
}

/**
 * What each notification `eventCode` settles, and Colibri's code when `success` is "false" (or for an
 * event that is itself a failure). AUTHORISATION failures carry a reason text, not a code: they are
 * translated by ADYEN_NOTIFICATION_REASONS where the text is known, else 05.
 */
export const ADYEN_EVENT_CODES: Readonly<Record<string, { operation: 'authorize' | 'capture' | 'cancel' | 'refund'; failure: OutcomeCode; alwaysFails?: true }>> = {
  AUTHORISATION: { operation: 'authorize', failure: '05' },
  CAPTURE: { operation: 'capture', failure: 'CAPTURE_FAILED' },
  CAPTURE_FAILED: { operation: 'capture', failure: 'CAPTURE_FAILED', alwaysFails: true },
  CANCELLATION: { operation: 'cancel', failure: 'CANCEL_FAILED' },
  REFUND: { operation: 'refund', failure: 'REFUND_REJECTED' },
  REFUND_FAILED: { operation: 'refund', failure: 'REFUND_REJECTED', alwaysFails: true },
  REFUNDED_REVERSED: { operation: 'refund', failure: 'REFUND_REJECTED', alwaysFails: true },
};

/** The `reason` texts of failed AUTHORISATION notifications (Adyen's refusal reason names). */
export const ADYEN_NOTIFICATION_REASONS: Readonly<Record<string, OutcomeCode>> = {
  Refused: '05',
  Referral: '01',
  'Blocked Card': '43',
  'Expired Card': '54',
  'Invalid Amount': '13',
  'Invalid Card Number': '14',
  'Issuer Unavailable': '91',
  'Not enough balance': '51',
  'CVC Declined': 'N7',
  'Restricted Card': '62',
  FRAUD: '59',
  '3D Not Authenticated': 'AUTHENTICATION_FAILED',
  'Transaction Not Permitted': '57',
};

/** The outcome a notification item reports for the operation it names. */
export function translateNotification(item: { eventCode: string; success: string; pspReference: string; reason?: string | undefined }): KnownOutcome | undefined {
  const event = ownEntry(ADYEN_EVENT_CODES, item.eventCode);
  if (!event) return undefined;
  if (item.success === 'true' && !event.alwaysFails) return { status: 'APPROVED', processorId: item.pspReference };
  if (event.operation === 'authorize') {
    const reason = (item.reason ?? '').split(':')[0]?.trim() ?? '';
    return outcomeOf(ownEntry(ADYEN_NOTIFICATION_REASONS, reason) ?? event.failure);
  }
  return outcomeOf(event.failure);
}

export { OUTCOME_CODES };
