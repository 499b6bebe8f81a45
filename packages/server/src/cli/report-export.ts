import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import type { Colibri } from '../../../sdk/src/index';

/**
 * `colibri reports export`: streams a report's rows to a file or stdout, with a progress bar on stderr.
 * The export is asked to count its rows first (`count=true`, answered in `X-Total-Count`), so the bar
 * shows the percentage and the rows received of the total; rows are told apart as they arrive
 * (RowCounter). A summary line always ends on stderr.
 */
export async function exportReport(colibri: Colibri, reportId: string, format: 'csv' | 'json', output: string | undefined): Promise<{ rows: number; bytes: number }> {
  const response = await colibri.reports.export(reportId, format, { count: true });
  const header = response.headers.get('x-total-count');
  const total = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: total === null ? `report ${reportId} | {value} rows | {kib} KiB | {duration_formatted}` : `report ${reportId} {bar} {percentage}% | {value}/{total} rows | {kib} KiB | ETA {eta_formatted}`,
      hideCursor: true,
      clearOnComplete: true,
      // The ETA averages the last 200 updates (about 25,000 rows), so it does not jump with each chunk.
      etaBuffer: 200,
    },
    cliProgress.Presets.shades_classic,
  );
  const rows = new RowCounter(format);
  let bytes = 0;
  bar.start(total ?? 0, 0, { kib: '0.0' });
  const sink = output ? createWriteStream(output) : process.stdout;
  const counter = new CountingWriter((chunk) => {
    bytes += chunk.length;
    rows.add(chunk);
    bar.update(rows.count, { kib: (bytes / 1024).toFixed(1) });
  }, sink);
  await pipeline(response.body as unknown as NodeJS.ReadableStream, counter);
  bar.stop();
  const of = total !== null && total !== rows.count ? ` (${total} counted first)` : '';
  process.stderr.write(`exported report ${reportId} as ${format}: ${rows.count} rows${of}, ${bytes} bytes${output ? `, to ${output}` : ''}\n`);
  return { rows: rows.count, bytes };
}

/**
 * Counts the rows of an export as its bytes arrive, whatever the chunk boundaries. CSV: a record ends
 * at a line break outside quotes (a field may hold a line break, inside quotes; `""` toggles twice),
 * and the first record is the header. JSON: the service writes each row's object after a line break,
 * and a JSON string holds no raw line break, so a row starts at each `\n{`.
 * @example const counter = new RowCounter('csv'); counter.add(Buffer.from('a\r\n1\r\n')); counter.count // 1
 */
export class RowCounter {
  private records = 0;
  private quoted = false;
  private afterNewline = false;

  constructor(private readonly format: 'csv' | 'json') {}

  get count(): number {
    return this.format === 'csv' ? Math.max(0, this.records - 1) : this.records;
  }

  add(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (this.format === 'csv') {
        if (byte === 0x22) this.quoted = !this.quoted;
        else if (byte === 0x0a && !this.quoted) this.records++;
      } else {
        if (this.afterNewline && byte === 0x7b) this.records++;
        this.afterNewline = byte === 0x0a;
      }
    }
  }
}

/** A writable that sees what passes and hands it to the real destination. */
class CountingWriter extends Writable {
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
