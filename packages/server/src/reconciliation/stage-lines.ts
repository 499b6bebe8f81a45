import { once } from 'node:events';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { sql } from 'kysely';
import type { Db } from '../db/database';
import { jsonParameter } from '../lib/json';
import { expectedFee, feeProblem, SETTLING_RULES, type FeeSchedule, type SettlingType } from './matching-rules';
import { RECORD_TYPES, type SettlementLine } from './settlement-details-format';

/**
 * The first half of matching a report (match-staged.ts is the second): its lines are written, a batch
 * at a time as the file is read, to the run's scratch table `reconciliation_staged`, which the
 * transaction drops when it ends. Matching them all at once afterwards lets the database join a million
 * lines with Colibri's records by hashing (one pass over each table), where looking each line up by its
 * key would cost a random read per line.
 *
 * A staged line keeps what the join compares as columns, and the rest of the line (the references, the
 * net, the fees, the date) as one JSON text read back only for the few lines that do not match. On
 * PostgreSQL the lines go in by one COPY for the whole report, the fastest way in (`pg-copy-streams`,
 * node-postgres's own companion for COPY); on PGlite, which serves tests and small installations, by one
 * INSERT of JSON rows per batch.
 */

/** Colibri's references as it sends them: `<payment token>:authorize`, `<token>:capture:<id>`, `<token>:refund:<refund id>`. */
const TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/;
const REFUND = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):refund:(\d{1,18})$/;

/** A staged line: what the join compares, then the rest (`x`). */
export interface StagedLine {
  /** The line of the file. */
  n: number;
  /** Its record type. */
  y: string;
  /** What it settles: payment, refund, dispute. */
  k: string;
  /** The payment token its references name. */
  t: string | null;
  /** The refund id. */
  r: string | null;
  /** The dispute's reference at the processor. */
  d: string | null;
  /** Psp Reference. */
  p: string;
  /** Gross currency. */
  c: string;
  /** Gross, in the direction of its type: what Colibri's record should hold. */
  g: string;
  /** The fees are wrong by themselves (matching-rules.ts feeProblem). */
  f: boolean;
  /** The rest, as JSON: StagedDetails. */
  x: string;
}

/** The rest of a staged line, as `x` holds it. */
export type StagedDetails = [merchantReference: string, modificationReference: string, modificationMerchantReference: string, netCurrency: string, feeMinor: string, netMinor: string, atMs: number | null, expectedFeeMinor: string | null];

const COLUMNS = 'n integer, y text, k text, t uuid, r bigint, d text, p text, c text, g bigint, f boolean, x text';
const NAMES = COLUMNS.split(', ').map((c) => c.split(' ')[0]);

/** The run's scratch table, dropped when its transaction ends. */
export async function createStagingTable(db: Db): Promise<void> {
  await sql`create temporary table reconciliation_staged (${sql.raw(COLUMNS)}) on commit drop`.execute(db);
}

/** Where staged lines go: one COPY (PostgreSQL) or an INSERT per batch (PGlite). */
export interface StagingSink {
  write(lines: readonly StagedLine[]): Promise<void>;
  /** Ends the writing; every line written is in the table once it resolves. */
  end(): Promise<void>;
  /** Gives up (the file was refused): what was written is dropped with the transaction. */
  abort(reason: Error): Promise<void>;
}

/** @example const sink = client ? copySink(client) : insertSink(trx) */
export function copySink(client: pg.PoolClient): StagingSink {
  const stream = client.query(copyFrom(`copy reconciliation_staged (${NAMES.join(', ')}) from stdin`));
  let failed: Error | undefined;
  stream.on('error', (error: Error) => {
    failed = error;
  });
  return {
    async write(lines) {
      if (failed) throw failed;
      let text = '';
      for (const l of lines) {
        // y, k and c are words of fixed vocabularies (a record type, a kind, three capitals), t a uuid, r and g digits:
        // only the report's own texts can hold a character COPY must escape.
        text += `${l.n}\t${l.y}\t${l.k}\t${l.t ?? '\\N'}\t${l.r ?? '\\N'}\t${l.d === null ? '\\N' : copyText(l.d)}\t${copyText(l.p)}\t${l.c}\t${l.g}\t${l.f ? 't' : 'f'}\t${copyText(l.x)}\n`;
      }
      // once() rejects if the stream fails meanwhile, and removes its listeners either way.
      if (!stream.write(text)) await once(stream, 'drain');
      if (failed) throw failed;
    },
    async end() {
      if (failed) throw failed;
      stream.end();
      await once(stream, 'finish');
    },
    async abort(reason) {
      if (stream.destroyed || failed) return;
      const closed = once(stream, 'close').catch(() => undefined);
      stream.destroy(reason);
      await closed;
    },
  };
}

/** @example const sink = insertSink(trx) */
export function insertSink(db: Db): StagingSink {
  return {
    async write(lines) {
      if (lines.length === 0) return;
      await sql`
        insert into reconciliation_staged (${sql.raw(NAMES.join(', '))})
        select ${sql.raw(NAMES.map((n) => `j.${n}`).join(', '))} from json_to_recordset(${jsonParameter(lines)}::json) as j(${sql.raw(COLUMNS)})`.execute(db);
    },
    async end() {},
    async abort() {},
  };
}

/** A JSON string: most references need no escape, and are quoted as they are. */
function jsonText(value: string): string {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 32 || code === 34 || code === 92 || code > 126) return JSON.stringify(value);
  }
  return `"${value}"`;
}

/** COPY's text format: a backslash, a tab and a line end are written as escapes. */
function copyText(value: string): string {
  if (value.indexOf('\\') === -1 && value.indexOf('\t') === -1 && value.indexOf('\n') === -1 && value.indexOf('\r') === -1) return value;
  return value.replaceAll('\\', '\\\\').replaceAll('\t', '\\t').replaceAll('\n', '\\n').replaceAll('\r', '\\r');
}

/** A batch sorted: the lines that settle an operation, staged, and how many settle none. */
export interface StagedBatch {
  staged: StagedLine[];
  informational: number;
}

/**
 * Sorts a batch: the lines that settle an operation are staged (one that names no reference of
 * Colibri's is staged too, and found missing in Colibri), the others counted as informational.
 * @example const { staged, informational } = stageBatch(SANDBOX_FEES, lines)
 */
export function stageBatch(fees: FeeSchedule | null, lines: readonly SettlementLine[]): StagedBatch {
  const result: StagedBatch = { staged: [], informational: 0 };
  for (const line of lines) {
    const kind = RECORD_TYPES[line.type];
    if (kind === null) {
      result.informational += 1;
      continue;
    }
    const type = line.type as SettlingType;
    const refund = kind === 'refund' ? REFUND.exec(line.modificationMerchantReference) : null;
    const token = refund?.[1] ?? TOKEN.exec(line.merchantReference)?.[1] ?? TOKEN.exec(line.modificationMerchantReference)?.[1] ?? null;
    const dispute = kind === 'dispute' && line.modificationReference !== '' ? line.modificationReference : null;
    const expected = expectedFee(line, fees);
    // The rest of the line as JSON, written by hand: JSON.stringify of an array per line costs more than the rest of staging it.
    const at = line.creationDate === null ? 'null' : String(line.creationDate.getTime());
    const x = `[${jsonText(line.merchantReference)},${jsonText(line.modificationReference)},${jsonText(line.modificationMerchantReference)},${jsonText(line.netCurrency)},"${line.feeMinor}","${line.netMinor}",${at},${expected === null ? 'null' : `"${expected}"`}]`;
    result.staged.push({
      n: line.line,
      y: line.type,
      k: kind,
      t: token,
      r: refund?.[2] ?? null,
      d: dispute,
      p: line.pspReference,
      c: line.grossCurrency,
      g: String(SETTLING_RULES[type].direction * line.grossMinor),
      f: feeProblem(line, fees, expected) !== undefined,
      x,
    });
  }
  return result;
}
