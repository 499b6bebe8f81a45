import { describe, it, expect } from 'vitest';
import { generateEndToEndId, isValidEndToEndId, parseEndToEndId } from './end-to-end-id';

// Examples printed in the Central Bank's PIX API specification (bacen/pix-api): the second spells the
// 11-character sequence as the format placeholder 'k'.
const SPEC_EXAMPLES = ['E12345678202009091221abcdef12345', 'E12345678202009091221kkkkkkkkkkk'];

describe('parseEndToEndId', () => {
  it.each(SPEC_EXAMPLES)('reads the specification example %s', (id) => {
    expect(id).toHaveLength(32);
    const parts = parseEndToEndId(id);
    expect(parts?.ispb).toBe('12345678');
    expect(parts?.createdAt.toISOString()).toBe('2020-09-09T12:21:00.000Z');
    expect(parts?.sequence).toBe(id.slice(21));
    expect(isValidEndToEndId(id)).toBe(true);
  });

  it('rejects wrong shapes', () => {
    const good = 'E12345678202009091221abcdef12345';
    expect(isValidEndToEndId(good.slice(0, 31))).toBe(false);
    expect(isValidEndToEndId(`${good}0`)).toBe(false);
    expect(isValidEndToEndId(`D${good.slice(1)}`)).toBe(false); // 'D' marks a refund id (RtrId)
    expect(isValidEndToEndId(`e${good.slice(1)}`)).toBe(false);
    expect(isValidEndToEndId(good.replace('abcdef', 'abc-ef'))).toBe(false);
    expect(isValidEndToEndId(good.replace('12345678', '1234567A'))).toBe(false);
    expect(isValidEndToEndId(` ${good.slice(1)}`)).toBe(false);
    expect(isValidEndToEndId('')).toBe(false);
  });

  it('rejects dates and times that do not exist', () => {
    const withStamp = (stamp: string) => `E12345678${stamp}abcdef12345`;
    expect(isValidEndToEndId(withStamp('202013091221'))).toBe(false); // month 13
    expect(isValidEndToEndId(withStamp('202000091221'))).toBe(false); // month 0
    expect(isValidEndToEndId(withStamp('202502291221'))).toBe(false); // 29 Feb in a common year
    expect(isValidEndToEndId(withStamp('202402291221'))).toBe(true); // 29 Feb in a leap year
    expect(isValidEndToEndId(withStamp('202004311221'))).toBe(false); // 31 April
    expect(isValidEndToEndId(withStamp('202009092400'))).toBe(false); // hour 24
    expect(isValidEndToEndId(withStamp('202009092360'))).toBe(false); // minute 60
    expect(isValidEndToEndId(withStamp('202009092359'))).toBe(true);
  });
});

describe('generateEndToEndId', () => {
  it('writes E, the ISPB, the UTC minute and 11 alphanumerics', () => {
    // 2020-09-09 09:21 in São Paulo (UTC-3) is 12:21 UTC: the id must carry the UTC time.
    const id = generateEndToEndId('12345678', { at: new Date('2020-09-09T09:21:59-03:00') });
    expect(id).toMatch(/^E12345678202009091221[A-Za-z0-9]{11}$/);
    expect(id).toHaveLength(32);
    expect(isValidEndToEndId(id)).toBe(true);
  });

  it('crosses midnight in UTC, not local time', () => {
    const id = generateEndToEndId('00000000', { at: new Date('2025-12-31T22:30:00-03:00') });
    expect(id.slice(9, 21)).toBe('202601010130');
  });

  it('uses the injected random source, skipping biased bytes', () => {
    // Bytes 248-255 would over-represent the first symbols if reduced modulo 62, so they must be skipped.
    const bytes = [255, 248, 0, 1, 25, 26, 51, 52, 61, 62, 247, 130, 3, 3, 3, 3];
    const id = generateEndToEndId('99999999', {
      at: new Date('2024-02-29T00:00:00Z'),
      randomBytes: (buffer) => {
        buffer.set(bytes.slice(0, buffer.length));
        return buffer;
      },
    });
    // 0->A, 1->B, 25->Z, 26->a, 51->z, 52->0, 61->9, 62->A (62 mod 62), 247->9 (247 mod 62 = 61), 130->G (130 mod 62 = 6)
    expect(id).toBe('E99999999202402290000ABZaz09A9GD');
  });

  it('spreads the 62 symbols evenly and does not repeat ids', () => {
    const counts = new Map<string, number>();
    const ids = new Set<string>();
    const at = new Date('2025-01-01T00:00:00Z');
    for (let i = 0; i < 5000; i += 1) {
      const id = generateEndToEndId('12345678', { at });
      ids.add(id);
      for (const ch of id.slice(21)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(ids.size).toBe(5000);
    expect(counts.size).toBe(62);
    // 55,000 symbols over 62 values: about 887 each; a biased generator would stray far beyond these bounds.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(700);
      expect(count).toBeLessThan(1080);
    }
  });

  it('refuses a malformed ISPB or date', () => {
    expect(() => generateEndToEndId('1234567')).toThrow(RangeError);
    expect(() => generateEndToEndId('1234567a')).toThrow(RangeError);
    expect(() => generateEndToEndId('12345678', { at: new Date('nonsense') })).toThrow(RangeError);
  });
});
