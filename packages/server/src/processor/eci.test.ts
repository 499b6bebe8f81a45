import { describe, expect, it } from 'vitest';
import { eciOutcome } from './eci';

describe('eciOutcome', () => {
  it("reads each scheme's values, and none for a value no scheme defines, even one every object inherits", () => {
    expect(['02', '01', '00', '05', '06', '07'].map(eciOutcome)).toEqual(['AUTHENTICATED', 'ATTEMPTED', 'NOT_AUTHENTICATED', 'AUTHENTICATED', 'ATTEMPTED', 'NOT_AUTHENTICATED']);
    for (const eci of ['03', '', 'constructor', 'toString', '__proto__', 'valueOf']) expect(eciOutcome(eci), eci).toBeNull();
  });
});
