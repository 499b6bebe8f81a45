import { describe, expect, it } from 'vitest';
import { pushStream, StreamClosedError } from './push-stream';

describe('pushStream', () => {
  it('makes the producer wait while the reader is behind, and delivers every chunk in order', async () => {
    const out = pushStream(8);
    let written = 0;
    const producer = (async () => {
      for (let i = 0; i < 5; i += 1) {
        await out.write(`chunk-${i};`);
        written += 1;
      }
      out.end();
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Nothing reads yet: the first chunk filled the buffer and the producer waits on it.
    expect(written).toBe(0);
    let text = '';
    for await (const chunk of out.stream) text += String(chunk);
    await producer;
    expect(written).toBe(5);
    expect(text).toBe('chunk-0;chunk-1;chunk-2;chunk-3;chunk-4;');
  });

  it('rejects the waiting write once the reader goes away, so the producer stops', async () => {
    const out = pushStream(8);
    const first = out.write('more than eight bytes');
    out.stream.destroy();
    await expect(first).rejects.toBeInstanceOf(StreamClosedError);
    await expect(out.write('again')).rejects.toBeInstanceOf(StreamClosedError);
  });

  it('offer says when to hold back, and drained when to go on', async () => {
    const out = pushStream(8);
    expect(out.offer('abc')).toBe(true);
    expect(out.offer('more than eight')).toBe(false);
    let drained = false;
    const waiting = out.drained().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(drained).toBe(false);
    out.stream.read();
    await waiting;
    expect(out.offer('x')).toBe(true);
    await out.drained();
    out.stream.destroy();
    expect(() => out.offer('late')).toThrow(StreamClosedError);
    await out.drained();
  });

  it('hands a producer failure to the reader as a stream error', async () => {
    const out = pushStream();
    await out.write('partial');
    out.fail(new Error('database went away'));
    await expect(
      (async () => {
        for await (const chunk of out.stream) void chunk;
      })(),
    ).rejects.toThrow('database went away');
  });
});
