import { describe, expect, it } from 'vitest';
import { jsonParameter, jsonRows } from './json';

describe('jsonParameter', () => {
  it('writes bigints as decimal strings and dates as ISO 8601, exactly', () => {
    const at = new Date('2026-11-27T10:00:00.123Z');
    expect(jsonParameter([{ amount_minor: 9007199254740993n, at, fees: [{ amount_minor: -12n }], note: undefined, n: 1 }])).toBe(
      '[{"amount_minor":"9007199254740993","at":"2026-11-27T10:00:00.123Z","fees":[{"amount_minor":"-12"}],"n":1}]',
    );
    expect(jsonParameter(5n)).toBe('"5"');
  });

  it('leaves bigints unable to become JSON outside the call, even when the call fails', () => {
    expect(() => JSON.stringify({ amount: 1n })).toThrow(new TypeError('Do not know how to serialize a BigInt'));
    const circular: Record<string, unknown> = { amount: 2n };
    circular.self = circular;
    expect(() => jsonParameter(circular)).toThrow(TypeError);
    expect(() => JSON.stringify({ amount: 1n })).toThrow(TypeError);
    expect(jsonParameter({ amount: 3n })).toBe('{"amount":"3"}');
  });

  it('never changes BigInt.prototype, whose every change makes V8 drop the optimised code that relied on it', () => {
    const before = Object.getOwnPropertyDescriptor(BigInt.prototype, 'toJSON');
    jsonParameter({ amount: 4n });
    expect(() => jsonParameter({ self: { toJSON: () => jsonParameter({ inner: 5n }) }, outer: 6n })).not.toThrow();
    expect(jsonParameter({ self: { toJSON: () => JSON.parse(jsonParameter({ inner: 5n })) as unknown }, outer: 6n })).toBe('{"self":{"inner":"5"},"outer":"6"}');
    expect(Object.getOwnPropertyDescriptor(BigInt.prototype, 'toJSON')).toEqual(before);
    expect(() => JSON.stringify(7n)).toThrow(TypeError);
  });

  it('leaves a replacer of bigints working outside the call, as if BigInt had no toJSON', () => {
    const seen: unknown[] = [];
    const text = JSON.stringify({ amount: 8n, nested: [9n] }, (_key, value: unknown) => {
      if (typeof value === 'bigint') seen.push(value);
      return typeof value === 'bigint' ? `${value}!` : value;
    });
    expect(text).toBe('{"amount":"8!","nested":["9!"]}');
    expect(seen).toEqual([8n, 9n]);
  });
});

describe('jsonRows', () => {
  it("leaves out each row's null properties, which the record functions read as SQL null anyway, and keeps nulls inside values", () => {
    const rows = [{ id: 'a', error_code: null, amount_minor: 0n, extra_data: { note: null }, tags: [null] }, { id: 'b', error_code: 'DECLINED', amount_minor: null }];
    expect(jsonRows(rows)).toBe('[{"id":"a","amount_minor":"0","extra_data":{"note":null},"tags":[null]},{"id":"b","error_code":"DECLINED"}]');
    expect(rows[0]).toHaveProperty('error_code', null);
  });
});

describe('jsonRows dates', () => {
  it('writes each date of a row exactly as JSON.stringify would, for every millisecond, however many instants pass', () => {
    const base = Date.UTC(2026, 10, 29, 23, 59, 59, 990);
    // More instants than the remembered texts (so the memory is emptied and filled again), each seen twice.
    const instants = Array.from({ length: 3000 }, (_, i) => base + i * 7);
    const rows = [...instants, ...instants.reverse()].map((ms) => ({ at: new Date(ms), nested: { at: new Date(ms) } }));
    expect(jsonRows(rows)).toBe(JSON.stringify(rows));
  });

  it('writes an invalid date as null, as JSON.stringify does', () => {
    expect(jsonRows([{ at: new Date(Number.NaN), id: 'a' }])).toBe('[{"at":null,"id":"a"}]');
  });
});
