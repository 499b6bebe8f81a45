import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OUTCOME_CODES } from './outcome-codes';
import { SANDBOX_DECLINE_CODES, translateSandboxCode, type SandboxDeclineCode } from './sandbox-codes';
import { TEST_CARD_DECLINES } from './sandbox-simulator';

const DOC = readFileSync(new URL('../../../../docs/connectors.md', import.meta.url), 'utf8');

describe('the sandbox simulator translation table', () => {
  it('maps each simulator code to a Colibri code, DECLINED but for the processor failure 96', () => {
    for (const [code, entry] of Object.entries(SANDBOX_DECLINE_CODES) as [SandboxDeclineCode, (typeof SANDBOX_DECLINE_CODES)[SandboxDeclineCode]][]) {
      expect(translateSandboxCode(code), code).toEqual({ status: code === '96' ? 'ERROR' : 'DECLINED', code: entry.colibri, description: OUTCOME_CODES[entry.colibri] });
    }
  });

  it('keeps the codes merchants see for the contract test cards, refunds and payouts', () => {
    expect(Object.fromEntries(Object.entries(TEST_CARD_DECLINES).map(([card, code]) => [card, translateSandboxCode(code)]))).toEqual({
      '4000000000000002': { status: 'DECLINED', code: '51', description: 'Insufficient funds' },
      '4000000000000069': { status: 'DECLINED', code: '54', description: 'Expired card' },
      '4000000000000119': { status: 'ERROR', code: '96', description: 'Processor system malfunction' },
    });
    expect(translateSandboxCode('N7')).toMatchObject({ status: 'DECLINED', code: 'N7' });
    expect(translateSandboxCode('MS03')).toMatchObject({ status: 'DECLINED', code: 'REFUND_REJECTED' });
    expect(translateSandboxCode('AC04')).toMatchObject({ status: 'DECLINED', code: 'ACCOUNT_CLOSED' });
  });

  it('is printed in docs/connectors.md as it is in the code', () => {
    for (const [code, entry] of Object.entries(SANDBOX_DECLINE_CODES)) {
      expect(DOC).toContain(`| \`${code}\` | ${entry.standard} | ${entry.meaning} | \`${entry.colibri}\` |`);
    }
  });
});
