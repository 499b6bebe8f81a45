import { ownEntry } from '../../lib/own-entry';

/**
 * Card networks' dispute reason codes and the category each falls in (docs/disputes.md, "Reasons").
 * The code is kept as the network gave it; the category is what a merchant's tooling acts on.
 * Visa's codes are its Visa Claims Resolution codes (10.x fraud, 11.x authorisation, 12.x processing
 * errors, 13.x consumer disputes); Mastercard's are its four-digit message reason codes.
 */
export type ReasonCategory = 'FRAUD' | 'NOT_RECEIVED' | 'NOT_AS_DESCRIBED' | 'DUPLICATE' | 'CREDIT_NOT_PROCESSED' | 'GENERAL';

/** Reasons with a category other than GENERAL, and their names. */
const REASONS: Readonly<Record<string, { readonly category: ReasonCategory; readonly name: string }>> = {
  // Visa
  '10.1': { category: 'FRAUD', name: 'EMV Liability Shift Counterfeit Fraud' },
  '10.2': { category: 'FRAUD', name: 'EMV Liability Shift Non-Counterfeit Fraud' },
  '10.3': { category: 'FRAUD', name: 'Other Fraud – Card-Present Environment' },
  '10.4': { category: 'FRAUD', name: 'Other Fraud – Card-Absent Environment' },
  '10.5': { category: 'FRAUD', name: 'Visa Fraud Monitoring Program' },
  // Some acquirers report the pair without its suffix.
  '12.6': { category: 'DUPLICATE', name: 'Duplicate Processing/Paid by Other Means' },
  '12.6.1': { category: 'DUPLICATE', name: 'Duplicate Processing' },
  '12.6.2': { category: 'DUPLICATE', name: 'Paid by Other Means' },
  '13.1': { category: 'NOT_RECEIVED', name: 'Merchandise/Services Not Received' },
  '13.3': { category: 'NOT_AS_DESCRIBED', name: 'Not as Described or Defective Merchandise/Services' },
  '13.4': { category: 'NOT_AS_DESCRIBED', name: 'Counterfeit Merchandise' },
  '13.5': { category: 'NOT_AS_DESCRIBED', name: 'Misrepresentation' },
  '13.6': { category: 'CREDIT_NOT_PROCESSED', name: 'Credit Not Processed' },
  // Mastercard
  '4837': { category: 'FRAUD', name: 'No Cardholder Authorization' },
  '4840': { category: 'FRAUD', name: 'Fraudulent Processing of Transactions' },
  '4849': { category: 'FRAUD', name: 'Questionable Merchant Activity' },
  '4863': { category: 'FRAUD', name: 'Cardholder Does Not Recognize – Potential Fraud' },
  '4870': { category: 'FRAUD', name: 'Chip Liability Shift' },
  '4871': { category: 'FRAUD', name: 'Chip/PIN Liability Shift' },
  '4834': { category: 'DUPLICATE', name: 'Point-of-Interaction Error (duplicate)' },
  '4855': { category: 'NOT_RECEIVED', name: 'Goods or Services Not Provided' },
  '4853': { category: 'NOT_AS_DESCRIBED', name: 'Cardholder Dispute' },
  '4860': { category: 'CREDIT_NOT_PROCESSED', name: 'Credit Not Processed' },
};

/**
 * The category and name of a network reason code; GENERAL (with no name) for one not listed.
 * @example disputeReason('13.1') // { category: 'NOT_RECEIVED', name: 'Merchandise/Services Not Received' }
 */
export function disputeReason(code: string): { category: ReasonCategory; name: string | null } {
  // Only the table's own codes: a code such as `constructor` must not find what every object inherits.
  const known = ownEntry(REASONS, code);
  if (known) return { ...known };
  // Visa's fraud family shares its prefix.
  if (/^10\.\d+$/.test(code)) return { category: 'FRAUD', name: null };
  return { category: 'GENERAL', name: null };
}
