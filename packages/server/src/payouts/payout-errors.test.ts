import { describe, expect, it } from 'vitest';
import { ERRORS } from '../http/errors';
import { describePayoutIssue, payoutIssueFailure, payoutRuleErrorKey } from './payout-errors';
import { PAYOUT_EXAMPLES } from './validation/examples';
import { PAYOUT_RULES } from './validation/rules';
import { validatePayoutItem } from './validation/validate-payout';

describe('payout error codes', () => {
  it('gives every validation rule its own 400 code in 02.01, numbered in rule order', () => {
    const codes = PAYOUT_RULES.map((rule) => ERRORS[payoutRuleErrorKey(rule)]);
    expect(codes.map((entry) => entry.status)).toEqual(PAYOUT_RULES.map(() => 400));
    expect(codes.map((entry) => entry.code)).toEqual(PAYOUT_RULES.map((_, index) => `02.01.${String(index + 1).padStart(4, '0')}`));
  });

  it('keeps every code of the catalogue unique', () => {
    const all = Object.values(ERRORS).map((entry) => entry.code);
    expect(new Set(all).size).toBe(all.length);
  });

  it('prefixes the description with the field path and says the field name once', () => {
    expect(
      describePayoutIssue({ path: 'payoutTransactions[2].required_PE.account_number', rule: 'PE_CCI_FORMAT', description: 'account_number must be 20 digits.' }),
    ).toBe('payoutTransactions[2].required_PE.account_number: must be 20 digits.');
    expect(describePayoutIssue({ path: 'payoutTransactions[0]', rule: 'ITEM_NOT_AN_OBJECT', description: 'payoutTransactions[0] must be a JSON object; got null.' })).toBe(
      'payoutTransactions[0]: must be a JSON object; got null.',
    );
    expect(describePayoutIssue({ path: 'payoutTransactions', rule: 'BATCH_EMPTY', description: 'payoutTransactions must contain at least one payout item.' })).toBe(
      'payoutTransactions: must contain at least one payout item.',
    );
  });

  it('turns a real validation issue into its code and a path-prefixed sentence', () => {
    const item = structuredClone(PAYOUT_EXAMPLES[8]?.item) as Record<string, any>;
    item.required_CL.tax_id = '12.345.678-9';
    expect(validatePayoutItem(item, 3).map(payoutIssueFailure)).toEqual([
      { key: 'PAYOUT_CL_RUT_CHECK_DIGIT', description: 'payoutTransactions[3].required_CL.tax_id: has a wrong RUT check digit for tax_id_type RUT.' },
    ]);
  });
});
