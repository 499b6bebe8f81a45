
/**
 * Export encoders. Each turns batches of report rows into text: a prologue, one piece per batch, an
 * epilogue; the export streams the pieces as they are made, so no encoder holds more than a batch.
 * The database has already written each row's cells, with their quoting or escaping
 * (compile-report.ts); the encoders add what surrounds rows.
 */
export interface RowEncoder {
  readonly contentType: string;
  readonly extension: string;
  start(): string;
  encode(rows: readonly ReportRow[]): string;
  end(): string;
}

export const EXPORT_FORMATS = ['csv', 'json'] as const;
/** A row of an export: its text, without the line end. */
export interface ReportRow {
  line: string;
}

export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break, quotes doubled.
 * @example csvField('say "hi", then go') // '"say ""hi"", then go"'
 */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * CSV (RFC 4180): a header row of the column aliases, then one line per row, CRLF line ends.
 * @example csvEncoder(['Status', 'Amount']).start() // 'Status,Amount\r\n'
 */
export function csvEncoder(aliases: readonly string[]): RowEncoder {
  return {
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    start: () => `${aliases.map(csvField).join(',')}\r\n`,
    encode(rows) {
      let out = '';
      for (const row of rows) out += `${row.line}\r\n`;
      return out;
    },
    end: () => '',
  };
}

/**
 * JSON: one array of objects, one per row, written one per line.
 * @example jsonEncoder().start() // '['
 */
export function jsonEncoder(): RowEncoder {
  let first = true;
  return {
    contentType: 'application/json; charset=utf-8',
    extension: 'json',
    start: () => '[',
    encode(rows) {
      let out = '';
      for (const row of rows) {
        out += `${first ? '\n' : ',\n'}{${row.line}}`;
        first = false;
      }
      return out;
    },
    end: () => (first ? ']\n' : '\n]\n'),
  };
}

/** @example encoderFor('csv', compiled.aliases) */
export function encoderFor(format: ExportFormat, aliases: readonly string[]): RowEncoder {
  return format === 'json' ? jsonEncoder() : csvEncoder(aliases);
}
