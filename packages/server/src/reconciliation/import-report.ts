import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { inPostgresTransaction, type Db } from '../db/database';
import type pg from 'pg';
import { csvRecords, type CsvLimits } from './csv-records';
import { insertLines } from './line-records';
import { matchStaged } from './match-staged';
import { RECONCILED_PROCESSORS, type ReconciledProcessor } from './matching-rules';
import { missingAtProcessor, resolveSettledLate } from './missing-at-processor';
import { emptyCounts, insertRun, loadRunByDigest, type RunCounts, type RunView } from './run-record';
import { copySink, createStagingTable, insertSink, stageBatch, type StagingSink } from './stage-lines';
import { readSettlementLine, ReportFormatError, RECORD_TYPES, settlementLayout, type ColumnLayout, type SettlementLine } from './settlement-details-format';

/**
 * Imports a processor's Settlement details report (settlement-details-format.ts) as one reconciliation
 * run, streamed: the file is read as it arrives and its lines staged in batches (stage-lines.ts) while
 * the next ones are read; then all are matched at once (match-staged.ts), Colibri's operations the report
 * should have listed are looked for (missing-at-processor.ts), and only the lines that did not match are
 * kept. Everything happens in one transaction, so a file refused at its last line (or a failure
 * anywhere) stores nothing, and the run's row is written last, once the file's SHA-256 is known: the
 * same file imported again is found there, the transaction rolls back, and the first run is the answer.
 */

/** Bounds of a report: a line of 64 KB, a file of 2 GB (a million lines take about 200 MB). */
export const REPORT_LIMITS: CsvLimits = { maxLineChars: 65_536, maxBytes: 2 * 1024 ** 3 };

/**
 * Lines staged per write. Small on purpose: a batch's lines live until it is written, and lines that live
 * through a few young-generation collections are promoted to V8's old generation, whose collections cost
 * far more. Measured on a report of 1,000,000 lines (bench/reconciliation.ts): batches of 10,000 lines took
 * 11.8 s of the service's CPU and a peak of 374 MB; batches of 1,000, 5.5 s and 179 to 217 MB.
 */
const BATCH_LINES = 1_000;

export interface ImportResult {
  readonly run: RunView;
  /** The file had been imported before: `run` is that first run, and nothing was written. */
  readonly repeated: boolean;
}

class RepeatedImport extends Error {
  constructor(readonly sha256: string) {
    super('the file was imported before');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a run reads: a report's lines a batch at a time, and the digest of what was read. */
export interface ReportSource {
  /** The lines, a batch at a time; a malformed report throws (ReportFormatError, CsvSyntaxError) and stores nothing. */
  lines(): AsyncIterable<readonly SettlementLine[]>;
  /** The SHA-256 of what was read, once `lines()` has ended: two runs of the same content are one. */
  digest(): string;
  /** The period the report covers, when its source says (PIX: the days asked for); else the lines' days. */
  readonly period?: { readonly from: Date; readonly to: Date };
}

/**
 * A Settlement details report streamed as CSV (a request's body), its SHA-256 taken as it is read.
 * @example importReport(ctx.db, 'adyen', settlementReportSource(request.raw), 'ana')
 */
export function settlementReportSource(body: AsyncIterable<Uint8Array | string>): ReportSource {
  const hash = createHash('sha256');
  async function* hashed() {
    for await (const chunk of body) {
      hash.update(chunk);
      yield chunk;
    }
  }
  return {
    async *lines() {
      let layout: ColumnLayout | undefined;
      for await (const records of csvRecords(hashed(), REPORT_LIMITS)) {
        const lines: SettlementLine[] = [];
        for (const record of records) {
          if (layout === undefined) layout = settlementLayout(record.fields, record.line);
          else lines.push(readSettlementLine(record, layout));
        }
        yield lines;
      }
      if (layout === undefined) throw new ReportFormatError('HEADER', 1, undefined, undefined, 'the file is empty: a report has a header line');
    },
    digest: () => hash.digest('hex'),
  };
}

/**
 * @example const { run } = await importSettlementReport(ctx.db, { processor: 'adyen', body: request.raw, importedBy: 'ana' })
 */
export function importSettlementReport(
  db: Db,
  input: { processor: ReconciledProcessor; body: AsyncIterable<Uint8Array | string>; importedBy: string | null },
): Promise<ImportResult> {
  return importReport(db, input.processor, settlementReportSource(input.body), input.importedBy);
}

/**
 * Reads a report from its source and reconciles it as one run.
 * @example const { run, repeated } = await importReport(ctx.db, 'pix', pixSource, null)
 */
export async function importReport(db: Db, processor: ReconciledProcessor, source: ReportSource, importedBy: string | null): Promise<ImportResult> {
  const input = { processor, importedBy };
  const runId = randomUUID();
  try {
    const work = async (trx: Db, client: pg.PoolClient | undefined) => {
      // Statements over a whole report's lines are planned for their size, not generically (db/database.ts);
      // their hash joins may hold the report's lines and the records they name in memory (one import at a
      // time is the operator's way); compiling them to machine code would cost more than it saves.
      await sql`set local plan_cache_mode = auto`.execute(trx);
      await sql`set local work_mem = '128MB'`.execute(trx);
      await sql`set local jit = off`.execute(trx);
      await createStagingTable(trx);
      const importer = new Importer(trx, input.processor, client ? copySink(client) : insertSink(trx));
      try {
        for await (const lines of source.lines()) {
          for (const line of lines) importer.add(line);
          await importer.flush(false);
        }
        await importer.flush(true);
      } catch (error) {
        await importer.abort(error as Error);
        throw error;
      }
      const counts = importer.counts;
      // A temporary table has no statistics until analysed: without them the planner would look each
      // staged line up in turn, instead of hashing them once.
      await sql`analyze reconciliation_staged`.execute(trx);
      const verdicts = await matchStaged(trx, runId, input.processor, importer.staged);
      counts.matched = verdicts.matched;
      counts.mismatched = verdicts.mismatched;
      counts.missingInColibri = verdicts.missingInColibri;
      const merchantIds = [...new Set([...verdicts.merchantIds, ...(await importer.namedMerchants())])];
      const from = source.period?.from ?? importer.from;
      const to = source.period?.to ?? importer.to;
      const missing = from && to ? await missingAtProcessor(trx, runId, input.processor, { from, to, merchantIds }) : [];
      counts.missingAtProcessor = missing.length;
      await insertLines(trx, missing);
      await resolveSettledLate(trx, runId, input.processor);
      const sha256 = source.digest();
      const inserted = await insertRun(trx, { id: runId, processor: input.processor, sha256, counts, from, to, importedBy: input.importedBy });
      if (!inserted) throw new RepeatedImport(sha256);
      return { counts, sha256 };
    };
    const run = await (inPostgresTransaction(db, work) ?? db.transaction().execute((trx) => work(trx, undefined)));
    const view = await loadRunByDigest(db, input.processor, run.sha256);
    if (!view) throw new Error(`run ${runId} was not stored`);
    return { run: view, repeated: false };
  } catch (error) {
    if (!(error instanceof RepeatedImport)) throw error;
    const first = await loadRunByDigest(db, input.processor, error.sha256);
    if (!first) throw new Error(`no run of ${input.processor} has the digest ${error.sha256}`, { cause: error });
    return { run: first, repeated: true };
  }
}

/**
 * A run being read: lines wait in a batch until it is full, then are staged while the next batch is
 * read (one statement at a time, the transaction's connection being one). A failed batch is reported
 * at the next flush and stops the import.
 */
class Importer {
  readonly counts: RunCounts = emptyCounts();
  from: Date | null = null;
  to: Date | null = null;
  /** Lines staged for matching. */
  staged = 0;
  private batch: SettlementLine[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Merchant accounts that look like Colibri merchant ids (the simulator's reports name the merchant so). */
  private readonly accounts = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly processor: ReconciledProcessor,
    private readonly sink: StagingSink,
  ) {}

  add(line: SettlementLine): void {
    this.counts.lines += 1;
    if (RECORD_TYPES[line.type] !== null && line.creationDate) {
      // The period: from the start of the first line's day to the end of the last's, in the line's time zone.
      const shift = line.zoneOffsetHours * 3_600_000;
      const day = Math.floor((line.creationDate.getTime() + shift) / 86_400_000) * 86_400_000 - shift;
      if (this.from === null || day < this.from.getTime()) this.from = new Date(day);
      if (this.to === null || day + 86_400_000 > this.to.getTime()) this.to = new Date(day + 86_400_000);
    }
    if (this.accounts.size < 1_000 && UUID.test(line.merchantAccount)) this.accounts.add(line.merchantAccount);
    this.batch.push(line);
  }

  /** Sends the batch when full (or, at the end, whatever is left, and ends the staging), after the one in flight has finished. */
  async flush(last: boolean): Promise<void> {
    if (this.batch.length >= (last ? 1 : BATCH_LINES)) {
      await this.inFlight;
      if (this.failure !== undefined) throw this.failure;
      const lines = this.batch;
      this.batch = [];
      this.inFlight = this.stage(lines).catch((error: unknown) => {
        this.failure = error;
      });
    }
    if (!last) return;
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    await this.sink.end();
  }

  /** Stops after a failure: waits for the batch in flight, and drops what was staged. */
  async abort(reason: Error): Promise<void> {
    await this.inFlight;
    await this.sink.abort(reason);
  }

  /** The merchants the report names as merchant accounts (the simulator's reports). */
  async namedMerchants(): Promise<string[]> {
    if (this.accounts.size === 0) return [];
    const named = await this.db.selectFrom('merchants').select('id').where('id', 'in', [...this.accounts]).execute();
    return named.map((m) => m.id);
  }

  private async stage(lines: SettlementLine[]): Promise<void> {
    const result = stageBatch(RECONCILED_PROCESSORS[this.processor].fees, lines);
    this.staged += result.staged.length;
    this.counts.informational += result.informational;
    await this.sink.write(result.staged);
  }
}
