import { Readable } from 'node:stream';

/** Thrown into a producer whose reader went away (the client closed the connection). */
export class StreamClosedError extends Error {
  constructor() {
    super('the reader of the stream went away');
    this.name = 'StreamClosedError';
  }
}

export interface PushStream {
  readonly stream: Readable;
  /**
   * Queues a chunk and resolves when the reader can take more, so a producer that awaits each write
   * never runs ahead of the network: memory stays at about one chunk plus the stream's buffer.
   * Rejects with StreamClosedError once the reader has gone.
   */
  write(chunk: string): Promise<void>;
  end(): void;
  fail(error: Error): void;
}

/**
 * A readable stream fed by an async producer with backpressure. Database drivers hand out rows inside
 * a callback that holds a connection (a transaction with a cursor), which an async iterator cannot
 * wrap; a producer that awaits `write` can run inside such a callback instead.
 * @example
 * const out = pushStream();
 * void (async () => { for (const batch of batches) await out.write(encode(batch)); out.end(); })();
 * reply.send(out.stream);
 */
export function pushStream(highWaterMark = 256 * 1024): PushStream {
  let wake: (() => void) | undefined;
  let closed = false;
  const resume = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const stream = new Readable({
    highWaterMark,
    read: resume,
    destroy(error, callback) {
      closed = true;
      resume();
      callback(error);
    },
  });
  return {
    stream,
    async write(chunk) {
      if (closed) throw new StreamClosedError();
      if (chunk !== '' && !stream.push(chunk)) await new Promise<void>((resolve) => (wake = resolve));
      if (closed) throw new StreamClosedError();
    },
    end() {
      if (!closed) stream.push(null);
    },
    fail(error) {
      if (!closed) stream.destroy(error);
    },
  };
}
