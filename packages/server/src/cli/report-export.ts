import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import type { Colibri } from '../../../sdk/src/index';

/**
 * `colibri reports export`: streams a report's rows to a file or stdout, with a progress bar on
 * stderr. The service streams without knowing the row count in advance, so the bar counts lines and
 * bytes as they arrive rather than a percentage (a CSV field may hold a line break, so lines are not
 * quite rows). A summary line always ends on stderr.
 */
export async function exportReport(colibri: Colibri, reportId: string, format: 'csv' | 'json', output: string | undefined): Promise<{ lines: number; bytes: number }> {
  const response = await colibri.reports.export(reportId, format);
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: `report ${reportId} | {lines} lines | {kib} KiB | {duration_formatted}`, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let lines = 0;
  let bytes = 0;
  bar.start(0, 0, { lines, kib: '0.0' });
  const sink = output ? createWriteStream(output) : process.stdout;
  const counter = new TransformCounter((chunk) => {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) lines++;
    bar.update(0, { lines, kib: (bytes / 1024).toFixed(1) });
  }, sink);
  await pipeline(response.body as unknown as NodeJS.ReadableStream, counter);
  bar.stop();
  process.stderr.write(`exported report ${reportId} as ${format}: ${lines} lines, ${bytes} bytes${output ? `, to ${output}` : ''}\n`);
  return { lines, bytes };
}

/** A writable that counts what passes and hands it to the real destination. */
class TransformCounter extends Writable {
  constructor(
    private readonly seen: (chunk: Buffer) => void,
    private readonly sink: NodeJS.WritableStream,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.seen(chunk);
    if (this.sink.write(chunk)) callback();
    else this.sink.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.sink === process.stdout) return callback();
    this.sink.end(() => callback());
  }
}
