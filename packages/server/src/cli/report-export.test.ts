import { describe, expect, it } from 'vitest';
import { RowCounter } from './report-export';

describe('RowCounter', () => {
  it('counts CSV records, not lines: a quoted field may hold a line break, and chunks split anywhere', () => {
    const text = 'Reference,Note\r\na-1,"two\r\nlines"\r\na-2,"say ""hi"""\r\na-3,plain\r\n';
    for (const size of [1, 2, 3, 7, text.length]) {
      const counter = new RowCounter('csv');
      for (let i = 0; i < text.length; i += size) counter.add(Buffer.from(text.slice(i, i + size)));
      expect(counter.count, `chunks of ${size}`).toBe(3);
    }
  });

  it('counts JSON rows, one object per line as the service writes them', () => {
    const text = '[\n{"Reference":"a-1","Note":"{braces}\\n{x"},\n{"Reference":"a-2"}\n]\n';
    for (const size of [1, 4, text.length]) {
      const counter = new RowCounter('json');
      for (let i = 0; i < text.length; i += size) counter.add(Buffer.from(text.slice(i, i + size)));
      expect(counter.count).toBe(2);
    }
    const empty = new RowCounter('json');
    empty.add(Buffer.from('[]\n'));
    expect(empty.count).toBe(0);
  });
});
