import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import pg from 'pg';
import { merchantNow } from '../clock/merchant-clock';
import type { AppContext } from '../context';
import { postgresConnections, type Db } from '../db/database';
import { isConnectionLost } from '../db/database-errors';
import { connectAndOpen } from '../db/read-routing';
import { ApiError } from '../http/errors';
import { compileReport, type CompiledReport } from './compile-report';
import { pushStream, StreamClosedError } from './push-stream';
import { readReport } from './read-report';
import { encoderFor, type ExportFormat, type ReportRow } from './row-formats';
import { validateReport } from './validate-report';

/**
 * `GET …/myreports/report/<id>/export?format=csv|json`: runs the report over the merchant's own rows
 * and streams them. Memory stays constant whatever the row count: rows are encoded in small chunks as
 * they are read, and reading waits while the client is slower than the database.
 *
 * - PostgreSQL: the report's query runs as one statement on a connection of its own, so the export is
 *   one consistent snapshot however long it streams (`streamFromPostgres`).
 * - PGlite has one connection for the whole service; a transaction held open for a whole download
 *   would stall every other request, so rows are read as separate `limit … offset …` windows of the
 *   same totally ordered query instead. Rows written while such an export runs may shift between
 *   windows; PGlite is the single-process development engine (docs/reports.md).
 */

/** Rows per PGlite window. */
export const WINDOW_ROWS = 2000;
/** Rows per written chunk: about 25 to 60 KiB of text (see `RowSink`). */
const CHUNK_ROWS = 128;
/** Exports running at once per service process; each holds a database connection on PostgreSQL. */
export const MAX_CONCURRENT_EXPORTS = 4;

const running = new WeakMap<AppContext, number>();

export interface ExportRun {
  readonly stream: Readable;
  readonly contentType: string;
  readonly filename: string;
  /** The number of rows the stream carries, when the export was asked to count them first (else null). */
  readonly rowCount: number | null;
}

/** What an export is asked for besides its format. */
export interface ExportOptions {
  /**
   * Count the rows first (one more query over the same rows) so the answer can say how many follow
   * (`X-Total-Count`): a client then shows a percentage. On PostgreSQL the count and the rows read one
   * snapshot; on PGlite, whose windows are separate reads, rows written meanwhile may make them differ.
   */
  readonly count?: boolean;
}

/**
 * Starts an export and resolves once its query runs: PostgreSQL has accepted and planned it, or PGlite
 * has read its first rows (so a query that fails before that still answers with an error body rather
 * than a cut stream).
 * @example const run = await exportReport(ctx, merchantId, '42', 'csv'); reply.type(run.contentType).send(run.stream);
 */
export async function exportReport(ctx: AppContext, merchantId: string, reportId: string, format: ExportFormat, options: ExportOptions = {}): Promise<ExportRun> {
  const report = await readReport(ctx.db, merchantId, reportId);
  if (!report.enable) throw new ApiError('REPORT_DISABLED', `reportId: report ${report.id} is disabled (enable: false); enable it to export it.`);
  // A definition stored under an older catalogue may no longer hold; it is refused, never half-run.
  const failures = validateReport(report);
  if (failures.length > 0) {
    throw ApiError.fields(failures.map((f) => ({ key: 'REPORT_DEFINITION_OUTDATED', description: f.description })));
  }
  const compiled = compileReport(report, merchantId, await merchantNow(ctx.db, merchantId), format);
  const encoder = encoderFor(format, compiled.aliases);

  const active = running.get(ctx) ?? 0;
  if (active >= MAX_CONCURRENT_EXPORTS) {
    throw new ApiError('RATE_LIMITED', `At most ${MAX_CONCURRENT_EXPORTS} report exports run at once; retry shortly.`, { retryAfterSeconds: 1 });
  }
  running.set(ctx, active + 1);

  const out = pushStream();
  // A query that fails before the stream is handed to the reply fails it with no one listening, which would
  // end the process: the failure is answered through `finished` instead (an error body, or a cut download).
  out.stream.on('error', () => undefined);
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  let started = false;
  let rowCount: number | null = null;
  const sink: RowSink = {
    begin(total) {
      if (started) return;
      started = true;
      if (total !== undefined) rowCount = total;
      signalReady();
      out.offer(encoder.start());
    },
    put(rows) {
      sink.begin();
      return out.offer(encoder.encode(rows));
    },
    drained: () => out.drained(),
  };
  const count = options.count === true;
  const produce = ctx.engine === 'postgres' ? streamFromPostgres(ctx.readDb, compiled, sink, count) : readInWindows(ctx.readDb, compiled, sink, count);
  const finished = produce.then(
    async () => {
      await out.write(started ? encoder.end() : encoder.start() + encoder.end());
      started = true;
      out.end();
    },
    (error: unknown) => {
      if (!(error instanceof StreamClosedError)) out.fail(error instanceof Error ? error : new Error(String(error)));
      throw error;
    },
  );
  const settled = finished.finally(() => running.set(ctx, (running.get(ctx) ?? 1) - 1));
  settled.catch(() => undefined);

  // The query runs (or the report ends empty), or it fails before anything was sent.
  await Promise.race([ready, finished]);
  return { stream: out.stream, contentType: encoder.contentType, filename: `report-${report.id}.${encoder.extension}`, rowCount };
}

/**
 * Where the readers put rows. Rows go in chunks of CHUNK_ROWS: V8 allocates a string over 128 KiB
 * outside the young generation, where only a full collection frees it, so batch-sized strings would
 * pile up as garbage and raise the peak memory.
 */
interface RowSink {
  /**
   * The query runs: the answer starts (the status, the CSV header), before the first row if need be,
   * with the row count when it was counted. Throws StreamClosedError once the client has gone.
   */
  begin(total?: number): void;
  /** Encodes and queues rows; false when the client has enough buffered: wait for `drained` before more. Throws StreamClosedError once the client has gone. */
  put(rows: readonly ReportRow[]): boolean;
  drained(): Promise<void>;
}

/**
 * PostgreSQL: the report's query runs as one statement on a connection of its own, inside a read-only
 * transaction (for its settings), and its rows are encoded as they arrive. One statement reads one
 * snapshot, however long the download takes. When the client falls behind, the connection's socket
 * is paused, so PostgreSQL waits on a full network buffer rather than the rows piling up here.
 *
 * One statement rather than a cursor read in batches: PostgreSQL never runs a cursor's query in
 * parallel, and a report's query is mostly PostgreSQL writing each row's text, which parallel workers
 * share. Measured over HTTP on a million payments (2 cores, docs/performance.md), the 16-column default
 * Pay-ins report exported a third faster than with FETCH 5000 from a cursor (300,000 to 324,000 rows a
 * second against 234,000 to 238,000). And with no batch array, no old-generation object holds rows:
 * a cursor's batches, held by the driver's array, were copied into the old generation by every young
 * collection, and the service's peak memory grew by 150 MB during a million-row export.
 *
 * On any failure (the client gone, a query error) the connection is closed, not returned to the pool
 * in the middle of a statement; PostgreSQL ends the query when its next write fails.
 */
async function streamFromPostgres(db: Db, compiled: CompiledReport, sink: RowSink, count: boolean): Promise<void> {
  const pool = postgresConnections(db);
  if (!pool) throw new Error('the PostgreSQL export needs the connections behind ctx.readDb (openDatabase)');
  const { sql: text, parameters } = compiled.query.compile(db);
  // Everything before the first row is a read with no effect, run again once on another connection
  // (the replica's, or the primary's if need be) when its connection is found lost: a replica that dies
  // as an export starts costs that export nothing.
  const { client, opened: total } = await connectAndOpen(pool, async (c) => {
    // Repeatable read: a count and the rows read one snapshot (a single statement would anyway).
    await c.query('begin isolation level repeatable read read only');
    // JIT compilation costs more than it saves here: the time goes into output functions, not expressions.
    await c.query('set local jit = off');
    // Dates are printed in the ISO style (compile-report.ts), whatever the database's default.
    await c.query("set local datestyle = 'ISO, YMD'");
    // Planned for the merchant's own filters and ranges, not generically (db/database.ts PLAN_CACHE_MODE).
    await c.query('set local plan_cache_mode = auto');
    // Parsed, bound and planned once first, so that a statement PostgreSQL refuses still answers with an
    // error body; the answer then starts before the first row, which a sorted parallel plan returns only
    // after sorting every row (1.8 s for a million rows of the Pay-ins report): PostgreSQL holds back its
    // replies to the running statement, its row description included, until rows fill a network buffer.
    await c.query({ text: `explain ${text}`, values: [...parameters] });
    if (!count) return undefined;
    const counted = await c.query<{ n: string }>({ text: `select count(*)::text as n from (${text}) as counted`, values: [...parameters] });
    return Number(counted.rows[0]?.n ?? 0);
  });
  const socket = client.connection.stream;
  let failure: Error | undefined;
  try {
    if (total !== undefined) sink.begin(total);
    sink.begin();
    await new Promise<void>((resolve, reject) => {
      const stop = (error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
        reject(failure);
      };
      let chunk: ReportRow[] = [];
      let paused = false;
      const put = (rows: readonly ReportRow[]) => {
        if (sink.put(rows) || paused) return;
        paused = true;
        socket.pause();
        void sink.drained().then(() => {
          paused = false;
          if (!failure) socket.resume();
        });
      };
      const query = new pg.Query<ReportRow>(text, [...parameters]);
      query.on('row', (row: ReportRow) => {
        if (failure) return;
        chunk.push(row);
        if (chunk.length < CHUNK_ROWS) return;
        const rows = chunk;
        chunk = [];
        try {
          put(rows);
        } catch (error) {
          stop(error);
        }
      });
      query.on('end', () => {
        if (failure) return;
        try {
          if (chunk.length > 0) sink.put(chunk);
          resolve();
        } catch (error) {
          stop(error);
        }
      });
      query.on('error', stop);
      void client.query(query);
    });
    // Every row has been read: a connection lost now (a replica whose postmaster died ends its backends
    // as they wait for the next statement) costs the export nothing, and is only closed.
    await client.query('commit').catch((error: unknown) => {
      if (!isConnectionLost(error)) throw error;
      failure = error as Error;
    });
  } catch (error) {
    failure ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    if (failure) socket.destroy();
    client.release(failure);
  }
}

/**
 * PGlite: `limit … offset …` windows of the report's totally ordered query, each in its own short
 * transaction (the service's one connection is never held for a whole download).
 */
async function readInWindows(db: Db, compiled: CompiledReport, sink: RowSink, count: boolean): Promise<void> {
  if (count) {
    const { rows } = await db.transaction().execute(async (trx) => {
      await sql`set local plan_cache_mode = auto`.execute(trx);
      return sql<{ n: string }>`select count(*)::text as n from (${compiled.query}) as counted`.execute(trx);
    });
    sink.begin(Number(rows[0]?.n ?? 0));
  }
  for (let skip = 0; ; ) {
    const window = compiled.window(skip, WINDOW_ROWS);
    if (!window) return;
    // Dates are printed in the ISO style (compile-report.ts), whatever the database's default.
    const { rows } = await db.transaction().execute(async (trx) => {
      await sql`set local datestyle = 'ISO, YMD'`.execute(trx);
      await sql`set local plan_cache_mode = auto`.execute(trx);
      return window.execute(trx);
    });
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) if (!sink.put(rows.slice(i, i + CHUNK_ROWS))) await sink.drained();
    const count = rows.length;
    // Emptied once written, so that its rows die young (an old-generation array would keep them alive
    // through young collections).
    rows.length = 0;
    if (count < WINDOW_ROWS) return;
    skip += count;
  }
}
