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
  /**
   * Queues a chunk now, for producers that cannot wait (rows arriving in a driver's events): false
   * when the reader has enough buffered, and the producer should hold further chunks until `drained`.
   * Throws StreamClosedError once the reader has gone.
   */
  offer(chunk: string): boolean;
  /** Resolves when the reader can take more, or has gone. */
  drained(): Promise<void>;
  end(): void;
  fail(error: Error): void;
}

/**
 * A readable stream fed by a producer with backpressure. Database drivers hand out rows inside a
 * callback that holds a connection (a transaction), or as events, which an async iterator cannot
 * wrap; a producer that awaits `write`, or one that pauses its source when `offer` says so until
 * `drained`, can feed the stream instead.
 * @example
 * const out = pushStream();
 * void (async () => { for (const batch of batches) await out.write(encode(batch)); out.end(); })();
 * reply.send(out.stream);
 */
export function pushStream(highWaterMark = 256 * 1024): PushStream {
  let wake: (() => void) | undefined;
  let waiting: Promise<void> | undefined;
  let full = false;
  let closed = false;
  const resume = () => {
    full = false;
    const resolve = wake;
    wake = undefined;
    waiting = undefined;
    resolve?.();
  };
  const offer = (chunk: string) => {
    if (closed) throw new StreamClosedError();
    if (chunk !== '' && !stream.push(chunk)) full = true;
    return !full;
  };
  const drained = () => {
    if (closed || !full) return Promise.resolve();
    waiting ??= new Promise<void>((resolve) => (wake = resolve));
    return waiting;
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
      if (!offer(chunk)) await drained();
      if (closed) throw new StreamClosedError();
    },
    offer,
    drained,
    end() {
      if (!closed) stream.push(null);
    },
    fail(error) {
      if (!closed) stream.destroy(error);
    },
  };
}
