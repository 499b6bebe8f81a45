import { declined, failed, type OutcomeCode } from '../../processor/outcome-codes';
import type { KnownOutcome } from '../connector';

/**
 * dLocal's Payouts API v3 vocabulary and its translation into Colibri's, in one place: the tables below are
 * printed in docs/connectors.md ("dLocal") and checked against it by test/dlocal-connector.test.ts. Nothing
 * of dLocal's words (statuses, codes, account and document types) leaves the connector.
 */

/** A payout's status at dLocal (reference "Payout status", v3), with its status code. */
export const DLOCAL_PAYOUT_STATUSES = {
  PENDING: { code: '100', colibri: 'PENDING' },
  PAID: { code: '200', colibri: 'APPROVED' },
  REJECTED: { code: '300', colibri: 'DECLINED' },
  CANCELLED: { code: '400', colibri: 'CANCELED' },
  DELIVERED: { code: '500', colibri: 'PENDING' },
  ON_HOLD: { code: '600', colibri: 'PENDING' },
  ON_HOLD_BY_COMPLIANCE: { code: '700', colibri: 'PENDING' },
} as const satisfies Record<string, { code: string; colibri: 'PENDING' | 'APPROVED' | 'DECLINED' | 'CANCELED' }>;

export type DlocalPayoutStatus = keyof typeof DLOCAL_PAYOUT_STATUSES;

/**
 * Why dLocal rejected a payout (its `status_code` beside `REJECTED`, the rejection list of its error-code
 * reference). An unlisted code is the bank's rejection without detail.
 */
export const DLOCAL_REJECTION_CODES: Readonly<Record<string, { readonly name: string; readonly code: OutcomeCode }>> = {
  '300': { name: 'The payout was rejected', code: 'BANK_REJECTED' },
  '800': { name: 'ERROR_ACCOUNT_INCORRECT', code: 'ACCOUNT_CLOSED' },
  '801': { name: 'ERROR_ACCOUNT_CLOSED', code: 'ACCOUNT_CLOSED' },
  '802': { name: 'ERROR_AMOUNT_INCORRECT', code: '13' },
  '803': { name: 'ERROR_BANK_INVALID', code: 'BANK_REJECTED' },
  '804': { name: 'ERROR_BANK_BRANCH_INCORRECT', code: 'BANK_REJECTED' },
  '805': { name: 'ERROR_BENEFICIARY_DOCUMENT_ID_INVALID', code: 'BENEFICIARY_MISMATCH' },
  '806': { name: 'ERROR_BENEFICIARY_NAME_INCORRECT', code: 'BENEFICIARY_MISMATCH' },
};

/**
 * dLocal's error answers (`{code, message, param}` with a 4xx), by code. `null`: not a refusal of the payout
 * (the connector handles it: 5011 means dLocal already has the external_id, 5009 that it has no such payout).
 */
export const DLOCAL_ERROR_CODES: Readonly<Record<number, { readonly name: string; readonly code: OutcomeCode | null }>> = {
  3000: { name: 'Invalid params', code: 'INVALID_REQUEST' },
  3001: { name: 'Empty params', code: 'INVALID_REQUEST' },
  3003: { name: 'Invalid bank code', code: 'INVALID_REQUEST' },
  4001: { name: 'Invalid credentials', code: 'CONNECTOR_AUTH' },
  4002: { name: 'Unregistered IP address', code: 'CONNECTOR_AUTH' },
  5007: { name: 'Country not found for payouts', code: 'NOT_SUPPORTED' },
  5008: { name: 'Limit exceeded', code: '61' },
  5009: { name: 'Payout not found with this ID', code: null },
  5010: { name: 'Invalid status: payout is not pending', code: 'UNEXPECTED_RESULT' },
  5011: { name: 'External ID already used', code: null },
  5012: { name: 'Rejected compliance limits', code: 'COMPLIANCE_REJECTED' },
  5013: { name: 'End beneficiary blacklisted', code: 'COMPLIANCE_REJECTED' },
  5014: { name: 'Insufficient funds', code: '51' },
  5015: { name: 'Rejected due to compliance', code: 'COMPLIANCE_REJECTED' },
};

/** Colibri's account types (per country) as dLocal's `bank_account.type`. */
export const DLOCAL_ACCOUNT_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  CO: { CC: 'CHECKING', CA: 'SAVINGS', NC: 'MOBILE', DE: 'ELECTRONIC_DEPOSIT' },
  PE: { CC: 'CHECKING', CA: 'SAVINGS', CM: 'MASTER' },
  CL: { CC: 'CHECKING', CA: 'SAVINGS', CV: 'VISTA' },
};

/** Colibri's tax id types (per country) as dLocal's `document.type`. */
export const DLOCAL_DOCUMENT_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  CO: { CC: 'CC', NIT: 'NIT', CE: 'CE', TI: 'TI', PP: 'PASS' },
  PE: { DNI: 'DNI', RUC: 'RUC', CE: 'CE', PAS: 'PASS' },
  CL: { RUT: 'RUT' },
};

/** A payout as dLocal answers it (creation, read-back, notification); only the fields Colibri reads. */
export interface DlocalPayout {
  readonly id?: string;
  readonly external_id?: string;
  readonly status?: string;
  readonly status_code?: string | number;
  readonly status_detail?: string;
}

/**
 * A payout's outcome in Colibri's words. A payout dLocal has not finished (PENDING, DELIVERED, on hold) is
 * PENDING; PAID is APPROVED with dLocal's payout id; REJECTED is declined with the reason of its status code;
 * CANCELLED is declined `CANCELED` (the payout is then CANCELED, not REJECTED). An unknown status is PENDING:
 * money may have left, so Colibri neither pays nor rejects the payout on a word it does not know.
 * @example translatePayout({ id: 'D-4-1', status: 'REJECTED', status_code: '801' }) // { status: 'DECLINED', code: 'ACCOUNT_CLOSED', … }
 */
export function translatePayout(payout: DlocalPayout): KnownOutcome {
  const entry = DLOCAL_PAYOUT_STATUSES[payout.status as DlocalPayoutStatus] as (typeof DLOCAL_PAYOUT_STATUSES)[DlocalPayoutStatus] | undefined;
  const processorId = payout.id ?? '';
  switch (entry?.colibri) {
    case 'PENDING':
      return { status: 'PENDING', processorId };
    case 'APPROVED':
      return { status: 'APPROVED', processorId };
    case 'CANCELED':
      return declined('CANCELED');
    case 'DECLINED':
      return declined(DLOCAL_REJECTION_CODES[String(payout.status_code ?? '300')]?.code ?? 'BANK_REJECTED');
    default:
      // A status Colibri does not know is not guessed at: the payout stays in flight and is read back.
      return { status: 'PENDING', processorId };
  }
}

/**
 * A refusal answered with an error body: Colibri's failure, or null for the codes the connector resolves
 * itself (an external_id already used, a payout not found).
 * @example translateError(403, 4001, 'Invalid credentials') // { status: 'ERROR', code: 'CONNECTOR_AUTH', … }
 */
export function translateError(httpStatus: number, code: number | undefined, message: string | undefined): KnownOutcome | null {
  const entry = code === undefined ? undefined : DLOCAL_ERROR_CODES[code];
  if (entry?.code === null) return null;
  const detail = `dLocal ${code ?? httpStatus}${message ? ` ${message}` : ''}`.slice(0, 200);
  if (entry) return failed(entry.code, detail);
  return failed(httpStatus === 401 || httpStatus === 403 ? 'CONNECTOR_AUTH' : 'INVALID_REQUEST', detail);
}
