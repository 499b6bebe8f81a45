import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAYOUT_EXAMPLES } from './examples';
import { PAYOUT_REJECT_SUFFIX } from '../../processor/sandbox-simulator';
import { PAYOUT_BATCH_MAX_ITEMS } from '../schemas';
import { PAYOUT_STATUSES } from '../states';
import { PAYOUT_RULES } from './rules';

// docs/payouts.md documents the rules and shows the examples; these tests keep it in step with the code.
const DOC = readFileSync(new URL('../../../../../docs/payouts.md', import.meta.url), 'utf8');

/** The text of a `## ` section, up to the next `## ` heading. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  expect(start, `section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end === -1 ? undefined : end);
}

describe('docs/payouts.md', () => {
  it('documents every rule, in the order they are checked', () => {
    const rows = [...section('Validation rules').matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    const known: readonly string[] = PAYOUT_RULES;
    expect(rows.filter((rule) => rule === undefined || !known.includes(rule))).toEqual([]);
    const firstSeen = rows.filter((rule, index) => rows.indexOf(rule) === index);
    expect(firstSeen).toEqual([...PAYOUT_RULES]);
  });

  it('shows exactly the examples of examples.ts, in order, under their titles', () => {
    const text = section('Valid examples');
    const titles = [...text.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    const items: unknown[] = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1] ?? 'null'));
    expect(titles).toEqual(PAYOUT_EXAMPLES.map((example) => example.title));
    expect(items).toEqual(PAYOUT_EXAMPLES.map((example) => example.item));
  });

  it('documents both endpoints, every status, the batch limit and the magic value in the API section', () => {
    const api = section('API');
    for (const text of [
      'POST /payoutTransaction',
      'GET /payoutTransaction/<tx_id>',
      ...PAYOUT_STATUSES.map((status) => `\`${status}\``),
      `${PAYOUT_BATCH_MAX_ITEMS.toLocaleString('en-US')} items`,
      PAYOUT_REJECT_SUFFIX,
    ]) {
      expect(api, text).toContain(text);
    }
  });
});
