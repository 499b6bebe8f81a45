import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { csvRecords, type CsvLimits } from './csv-records';
import { insertLines, type MismatchLine } from './line-records';
import { createSeenTable, matchBatch } from './match-batch';
import type { ReconciledProcessor } from './matching-rules';
import { missingAtProcessor, resolveSettledLate } from './missing-at-processor';
import { emptyCounts, insertRun, loadRunByDigest, type RunCounts, type RunView } from './run-record';
import { readSettlementLine, ReportFormatError, RECORD_TYPES, settlementLayout, type ColumnLayout, type SettlementLine } from './settlement-details-format';

/**
 * Imports a processor's Settlement details report (settlement-details-format.ts) as one reconciliation
 * run, streamed: the file is read as it arrives, its lines matched in batches (match-batch.ts) while
 * the next ones are read, and only the lines that did not match are kept. Everything happens in one
 * transaction, so a file refused at its last line (or a failure anywhere) stores nothing, and the run's
 * row is written last, once the file's SHA-256 is known: the same file imported again is found there,
 * the transaction rolls back, and the first run is the answer.
 */

/** Bounds of a report: a line of 64 KB, a file of 2 GB (a million lines take about 200 MB). */
export const REPORT_LIMITS: CsvLimits = { maxLineChars: 65_536, maxBytes: 2 * 1024 ** 3 };

/** Lines matched per statement: large enough that a round trip is small beside it, small enough to stay a few megabytes. */
const BATCH_LINES = 10_000;

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

/**
 * @example const { run } = await importSettlementReport(ctx.db, { processor: 'adyen', body: request.raw, importedBy: 'ana' })
 */
export async function importSettlementReport(
  db: Db,
  input: { processor: ReconciledProcessor; body: AsyncIterable<Uint8Array | string>; importedBy: string | null },
): Promise<ImportResult> {
  const hash = createHash('sha256');
  async function* hashed() {
    for await (const chunk of input.body) {
      hash.update(chunk);
      yield chunk;
    }
  }
  const runId = randomUUID();
  try {
    const run = await db.transaction().execute(async (trx) => {
      await createSeenTable(trx);
      const importer = new Importer(trx, runId, input.processor);
      try {
        let layout: ColumnLayout | undefined;
        for await (const records of csvRecords(hashed(), REPORT_LIMITS)) {
          for (const record of records) {
            if (layout === undefined) layout = settlementLayout(record.fields, record.line);
            else importer.add(readSettlementLine(record, layout));
          }
          await importer.flush(false);
        }
        if (layout === undefined) throw new ReportFormatError('HEADER', 1, undefined, undefined, 'the file is empty: a report has a header line');
        await importer.flush(true);
      } finally {
        await importer.settle();
      }
      const counts = importer.counts;
      const scope = { from: importer.from, to: importer.to, merchantIds: await importer.merchants() };
      const missing = scope.from && scope.to ? await missingAtProcessor(trx, runId, input.processor, { ...scope, from: scope.from, to: scope.to }) : [];
      counts.missingAtProcessor = missing.length;
      await insertLines(trx, missing);
      await resolveSettledLate(trx, runId, input.processor);
      const sha256 = hash.digest('hex');
      const inserted = await insertRun(trx, { id: runId, processor: input.processor, sha256, counts, from: scope.from, to: scope.to, importedBy: input.importedBy });
      if (!inserted) throw new RepeatedImport(sha256);
      return { counts, sha256 };
    });
    const view = await loadRunByDigest(db, input.processor, run.sha256);
    if (!view) throw new Error(`run ${runId} was not stored`);
    return { run: view, repeated: false };
  } catch (error) {
    if (!(error instanceof RepeatedImport)) throw error;
    const first = await loadRunByDigest(db, input.processor, error.sha256);
    if (!first) throw new Error(`no run of ${input.processor} has the digest ${error.sha256}`);
    return { run: first, repeated: true };
  }
}

/**
 * A run being read: lines wait in a batch until it is full, then are matched while the next batch is
 * read (one statement at a time, the transaction's connection being one). A failed batch is reported
 * at the next flush and stops the import.
 */
class Importer {
  readonly counts: RunCounts = emptyCounts();
  from: Date | null = null;
  to: Date | null = null;
  private batch: SettlementLine[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Merchant accounts that are Colibri merchant ids (the simulator's reports name the merchant so). */
  private readonly namedMerchants = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    private readonly processor: ReconciledProcessor,
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
    if (UUID.test(line.merchantAccount)) this.namedMerchants.add(line.merchantAccount);
    this.batch.push(line);
  }

  /** Sends the batch when full (or, at the end, whatever is left), after the one in flight has finished. */
  async flush(last: boolean): Promise<void> {
    if (this.batch.length < (last ? 1 : BATCH_LINES)) return;
    await this.inFlight;
    if (this.failure !== undefined) throw this.failure;
    const lines = this.batch;
    this.batch = [];
    this.inFlight = this.match(lines).catch((error: unknown) => {
      this.failure = error;
    });
    if (last) await this.settle(true);
  }

  /** Waits for the batch in flight; with `rethrow`, reports its failure. Always awaited before the transaction ends. */
  async settle(rethrow = false): Promise<void> {
    await this.inFlight;
    if (rethrow && this.failure !== undefined) throw this.failure;
  }

  /** The merchants the report speaks for: those whose records its lines named, and those it names as merchant accounts. */
  async merchants(): Promise<string[]> {
    const { rows } = await sql<{ merchant_id: string }>`select distinct merchant_id::text as merchant_id from reconciliation_seen`.execute(this.db);
    const ids = new Set(rows.map((r) => r.merchant_id));
    if (this.namedMerchants.size > 0) {
      const named = await this.db.selectFrom('merchants').select('id').where('id', 'in', [...this.namedMerchants]).execute();
      for (const m of named) ids.add(m.id);
    }
    return [...ids];
  }

  private async match(lines: SettlementLine[]): Promise<void> {
    const { mismatches, counts } = await matchBatch(this.db, this.runId, this.processor, lines);
    this.counts.matched += counts.matched;
    this.counts.mismatched += counts.mismatched;
    this.counts.missingInColibri += counts.missingInColibri;
    this.counts.informational += counts.informational;
    await insertLines(this.db, mismatches satisfies MismatchLine[]);
  }
}
