/**
 * Colibri's own vocabulary for why an operation was refused or failed: the `error_code` and
 * `error_description` a merchant sees on a payment, refund or payout. Card refusals use the ISO 8583
 * response codes that acquirers and merchants already know; the rest name the rule in words. Every
 * connector translates its provider's codes into these inside itself (docs/connectors.md has the
 * tables), so a merchant's handling never depends on which provider served the payment.
 */
export const OUTCOME_CODES = {
  '01': 'Refer to the card issuer',
  '05': 'Do not honour',
  '13': 'Invalid amount',
  '14': 'Invalid card number',
  '43': 'Blocked card (lost or stolen)',
  '51': 'Insufficient funds',
  '54': 'Expired card',
  '55': 'Incorrect PIN',
  '57': 'Transaction not permitted to the cardholder',
  '59': 'Suspected fraud',
  '61': 'Exceeds the withdrawal amount limit',
  '62': 'Restricted card',
  '65': 'Exceeds the withdrawal frequency limit',
  '75': 'PIN tries exceeded',
  '91': 'Issuer unavailable',
  '96': 'Processor system malfunction',
  N7: 'CVV verification failed',
  R1: 'The cardholder revoked the authorisation',
  AUTHENTICATION_FAILED: 'The issuer requires 3DS authentication, or the authentication failed',
  NOT_AUTHENTICATED: 'The 3DS data says the cardholder was not authenticated (ECI 07, or 00 for Mastercard); a debit needs an authenticated cardholder',
  CANCELED: 'The operation was canceled before it completed',
  NOT_SUPPORTED: 'The card or operation is not supported by the processor',
  CAPTURE_FAILED: 'The processor could not capture the authorisation',
  CANCEL_FAILED: 'The processor could not void the authorisation',
  REFUND_REJECTED: 'The payer institution rejected the refund',
  ACCOUNT_CLOSED: 'The recipient account is closed or does not exist',
  BANK_REJECTED: "The recipient's bank rejected the transfer",
  BENEFICIARY_MISMATCH: "The recipient's name or document does not match the account",
  COMPLIANCE_REJECTED: "The processor's compliance checks refused the payout",
  PAYOUT_RETURNED: "The recipient's bank returned the transfer after it was paid",
  CARD_MISSING: 'The card of this payment no longer exists',
  INVALID_REQUEST: 'The processor refused the request as invalid',
  CONNECTOR_AUTH: "The processor refused the connector's credentials",
  UNEXPECTED_RESULT: 'The processor answered with a result Colibri does not expect for this operation',
} as const;

export type OutcomeCode = keyof typeof OUTCOME_CODES;

/** A refusal in Colibri's vocabulary, with the code's own description. @example declined('51') */
export function declined(code: OutcomeCode): { status: 'DECLINED'; code: OutcomeCode; description: string } {
  return { status: 'DECLINED', code, description: OUTCOME_CODES[code] };
}

/** A failure in Colibri's vocabulary; `detail` adds the provider's words. @example failed('96') */
export function failed(code: OutcomeCode, detail?: string): { status: 'ERROR'; code: OutcomeCode; description: string } {
  return { status: 'ERROR', code, description: detail ? `${OUTCOME_CODES[code]}: ${detail}` : OUTCOME_CODES[code] };
}
