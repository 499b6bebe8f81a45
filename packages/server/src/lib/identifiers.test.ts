import { describe, expect, it } from 'vitest';
import { isUuid } from './identifiers';

describe('isUuid', () => {
  it('accepts the 8-4-4-4-12 hexadecimal form in either case', () => {
    expect(isUuid('7c9e6679-7425-40de-944b-e07fc1f90ae7')).toBe(true);
    expect(isUuid('7C9E6679-7425-40DE-944B-E07FC1F90AE7')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
  });

  it('refuses anything else, so a malformed id never reaches a uuid column', () => {
    for (const value of ['', 'not-a-uuid', '7c9e6679742540de944be07fc1f90ae7', '7c9e6679-7425-40de-944b-e07fc1f90ae', '7c9e6679-7425-40de-944b-e07fc1f90ae7 ', 'g c9e6679-7425-40de-944b-e07fc1f90ae7', "7c9e6679-7425-40de-944b-e07fc1f90ae7' or 1=1"]) {
      expect(isUuid(value), value).toBe(false);
    }
  });
});
