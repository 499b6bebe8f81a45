import { declined, failed, type OutcomeCode } from './outcome-codes';
import type { OperationResult } from './processor';

/**
 * The sandbox simulator's own vocabulary, translated into Colibri's at the sandbox connector's edge. The
 * simulated acquirer refuses card operations with ISO 8583 response codes (field 39) and the simulated
 * banks refuse transfers (refunds, payouts) with ISO 20022 status reason codes, as real ones do; nothing
 * in these words leaves the simulator: every refusal goes through this table before it is recorded in
 * the simulator's books or returned, the way the Adyen connector translates Adyen's codes
 * (connectors/adyen/adyen-codes.ts). docs/connectors.md prints the table, and a test keeps the two in
 * step.
 */
export const SANDBOX_DECLINE_CODES = {
  '51': { standard: 'ISO 8583', meaning: 'Not sufficient funds', colibri: '51' },
  '54': { standard: 'ISO 8583', meaning: 'Expired card', colibri: '54' },
  '96': { standard: 'ISO 8583', meaning: 'System malfunction', colibri: '96' },
  N7: { standard: 'ISO 8583', meaning: 'Decline for CVV2 failure', colibri: 'N7' },
  MS03: { standard: 'ISO 20022', meaning: 'Not specified reason (agent generated)', colibri: 'REFUND_REJECTED' },
  AC04: { standard: 'ISO 20022', meaning: 'Closed account number', colibri: 'ACCOUNT_CLOSED' },
} as const satisfies Record<string, { standard: string; meaning: string; colibri: OutcomeCode }>;

/** A code the simulator refuses an operation with. */
export type SandboxDeclineCode = keyof typeof SANDBOX_DECLINE_CODES;

/** Colibri codes that are the processor's failure rather than a refusal: the operation ends ERROR. */
const FAILURE_CODES: ReadonlySet<OutcomeCode> = new Set<OutcomeCode>(['96']);

/**
 * A refusal of the simulator in Colibri's vocabulary: DECLINED, or ERROR for a processor failure, with
 * the Colibri code's own description.
 * @example translateSandboxCode('AC04') // { status: 'DECLINED', code: 'ACCOUNT_CLOSED', description: 'The recipient account is closed or does not exist' }
 */
export function translateSandboxCode(code: SandboxDeclineCode): Extract<OperationResult, { status: 'DECLINED' | 'ERROR' }> {
  const colibri: OutcomeCode = SANDBOX_DECLINE_CODES[code].colibri;
  return FAILURE_CODES.has(colibri) ? failed(colibri) : declined(colibri);
}
