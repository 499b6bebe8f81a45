import { describe, expect, it } from 'vitest';
import { csvEncoder, csvField, jsonEncoder } from './row-formats';

describe('csvField', () => {
  it('quotes per RFC 4180 only when needed', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
  });
});

describe('csvEncoder', () => {
  it('writes a quoted header and the lines the database wrote, with CRLF line ends', () => {
    const encoder = csvEncoder(['Status', 'Tax "id"', 'Count']);
    expect(encoder.start()).toBe('Status,"Tax ""id""",Count\r\n');
    expect(encoder.encode([{ line: 'PAID,***.982.247-**,3' }, { line: 'DECLINED,,0' }])).toBe('PAID,***.982.247-**,3\r\nDECLINED,,0\r\n');
    expect(encoder.end()).toBe('');
  });
});

describe('jsonEncoder', () => {
  it('writes one array of objects whatever the batches', () => {
    const encoder = jsonEncoder();
    const text = encoder.start() + encoder.encode([{ line: '"Status":"PAID","Count":3' }]) + encoder.encode([{ line: '"Status":null,"Count":0' }]) + encoder.end();
    expect(text).toBe('[\n{"Status":"PAID","Count":3},\n{"Status":null,"Count":0}\n]\n');
    expect(JSON.parse(text)).toEqual([
      { Status: 'PAID', Count: 3 },
      { Status: null, Count: 0 },
    ]);
  });

  it('writes an empty array for no rows', () => {
    const encoder = jsonEncoder();
    expect(JSON.parse(encoder.start() + encoder.end())).toEqual([]);
  });
});
