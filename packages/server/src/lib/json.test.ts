import { describe, expect, it } from 'vitest';
import { jsonParameter } from './json';

describe('jsonParameter', () => {
  it('writes bigints as decimal strings and dates as ISO 8601, exactly', () => {
    const at = new Date('2026-11-27T10:00:00.123Z');
    expect(jsonParameter([{ amount_minor: 9007199254740993n, at, fees: [{ amount_minor: -12n }], note: undefined, n: 1 }])).toBe(
      '[{"amount_minor":"9007199254740993","at":"2026-11-27T10:00:00.123Z","fees":[{"amount_minor":"-12"}],"n":1}]',
    );
    expect(jsonParameter(5n)).toBe('"5"');
  });

  it('leaves bigints unable to become JSON outside the call, even when the call fails', () => {
    expect(() => JSON.stringify({ amount: 1n })).toThrow(TypeError);
    const circular: Record<string, unknown> = { amount: 2n };
    circular.self = circular;
    expect(() => jsonParameter(circular)).toThrow(TypeError);
    expect(() => JSON.stringify({ amount: 1n })).toThrow(TypeError);
    expect(jsonParameter({ amount: 3n })).toBe('{"amount":"3"}');
    expect(Object.hasOwn(BigInt.prototype, 'toJSON')).toBe(false);
  });
});
