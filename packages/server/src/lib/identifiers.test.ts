import { describe, expect, it } from 'vitest';
import { isUuid, timeOrderedId } from './identifiers';

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

describe('timeOrderedId', () => {
  it('makes version 7 UUIDs that sort in the order they were made, within a millisecond and across milliseconds', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2000; i++) {
      ids.push(timeOrderedId());
      if (i % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids) {
      expect(isUuid(id)).toBe(true);
      expect(id[14], id).toBe('7'); // the version digit
    }
    // PostgreSQL orders uuid values byte by byte, as these lower-case strings sort.
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every id random bits of its own, across many refills of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => timeOrderedId());
    for (const id of ids) expect('89ab', id).toContain(id[19]); // the RFC 9562 variant
    // The last 40 bits are random bytes only: a pool handing out the same bytes twice would repeat them.
    const tails = new Set(ids.map((id) => id.slice(-10)));
    expect(tails.size).toBe(ids.length);
  });

  it('starts with the time it was made, in milliseconds', () => {
    const before = Date.now();
    const id = timeOrderedId();
    const after = Date.now();
    const millis = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
  });
});
