import { describe, expect, it } from 'vitest';
import { disputeReason } from './dispute-reasons';

describe('disputeReason', () => {
  it("names a code of the table, puts Visa's 10.x in fraud, and reads any other code, even one an object inherits, as general", () => {
    expect(disputeReason('10.4').category).toBe('FRAUD');
    expect(disputeReason('10.9')).toEqual({ category: 'FRAUD', name: null });
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'XX-1']) expect(disputeReason(code), code).toEqual({ category: 'GENERAL', name: null });
  });
});
