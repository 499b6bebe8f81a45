import type { ErrorKey } from '../http/errors';
import type { PayoutIssue, PayoutRule } from './validation/rules';

/**
 * How payout problems become catalogue errors. Every validation rule has its own code: the catalogue
 * entry named `PAYOUT_<rule>` (02.01.xxxx in http/errors.ts). Typing the name as a template literal
 * makes the compiler refuse a rule without its entry, so a new rule cannot reach clients uncoded.
 */

/**
 * The catalogue entry of a validation rule.
 * @example payoutRuleErrorKey('PE_CCI_CHECK_DIGIT') // 'PAYOUT_PE_CCI_CHECK_DIGIT' (02.01.0024)
 */
export function payoutRuleErrorKey(rule: PayoutRule): ErrorKey {
  const key: `PAYOUT_${PayoutRule}` = `PAYOUT_${rule}`;
  return key;
}

/** A problem found in a batch, in the catalogue's terms: which entry, and the path-prefixed sentence. */
export interface PayoutFailure {
  readonly key: ErrorKey;
  readonly description: string;
}

/**
 * The answer's description of one issue: the field path, a colon, then the rule's sentence. The rule's
 * sentence starts with the field's own name, which the path already ends with, so it is said once.
 * @example
 * describePayoutIssue({ path: 'payoutTransactions[2].required_PE.account_number', rule: 'PE_CCI_FORMAT', description: 'account_number must be …' })
 * // 'payoutTransactions[2].required_PE.account_number: must be …'
 */
export function describePayoutIssue(issue: PayoutIssue): string {
  const field = issue.path.slice(issue.path.lastIndexOf('.') + 1);
  const sentence = issue.description.startsWith(`${field} `) ? issue.description.slice(field.length + 1) : issue.description;
  return `${issue.path}: ${sentence}`;
}

/**
 * One validation issue as a catalogue failure.
 * @example payoutIssueFailure(issue) // { key: 'PAYOUT_REQUIRED', description: 'payoutTransactions[0].reference_id: is required.' }
 */
export function payoutIssueFailure(issue: PayoutIssue): PayoutFailure {
  return { key: payoutRuleErrorKey(issue.rule), description: describePayoutIssue(issue) };
}

