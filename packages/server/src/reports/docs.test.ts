import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { validatorCompiler } from '../http/validation';
import type { ReportInput } from './report-definition';
import { ReportBody } from './schemas';
import { validateReport } from './validate-report';

it('every example report in docs/reports.md passes the request schema and the catalogue rules', () => {
  const docs = readFileSync(new URL('../../../../docs/reports.md', import.meta.url), 'utf8');
  const examples = [...docs.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? '')
    .filter((block) => block.includes('"report_type"') && !block.includes('…'));
  expect(examples.length).toBeGreaterThanOrEqual(3);
  const check = validatorCompiler({ schema: ReportBody, httpPart: 'body', method: 'POST', url: '/reports/myreports/report' }) as unknown as ((body: unknown) => boolean) & { errors?: unknown };
  for (const example of examples) {
    const body = JSON.parse(example) as ReportInput;
    expect(check(body), `${body.name}: ${JSON.stringify(check.errors)}`).toBe(true);
    expect(validateReport(body), body.name).toEqual([]);
  }
});
