import type { FieldSpec, Layout, RecordKind } from './cnab240-layout';

/** Every line of a CNAB 240 file has exactly this many characters. */
export const LINE_LENGTH = 240;

/** A file refused whole: the line (1-based) and the field at fault. */
export class CnabFileError extends Error {
  constructor(
    readonly line: number,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`line ${line}, ${field}: ${reason}`);
    this.name = 'CnabFileError';
  }
}

export type RecordValues = Readonly<Record<string, string | number | bigint | undefined>>;

/**
 * The characters a CNAB file may carry: FEBRABAN asks for upper-case letters without accents, digits,
 * spaces and a few signs. Names are folded to that set rather than refused.
 * @example cnabText('São Paulo – Açaí') // 'SAO PAULO - ACAI'
 */
export function cnabText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2010-\u2015]/g, '-')
    .toUpperCase()
    .replace(/[^A-Z0-9 .,\-/&()]/g, ' ');
}

/** Checks that a record's table covers positions 1 to 240 once each, in order. */
export function assertCovers(kind: RecordKind, fields: readonly FieldSpec[]): void {
  let next = 1;
  for (const field of fields) {
    if (field.from !== next) throw new Error(`layout ${kind}: ${field.name} starts at ${field.from}, expected ${next}`);
    if (field.fixed !== undefined && field.fixed.length !== field.length) throw new Error(`layout ${kind}: ${field.name} fixed value is not ${field.length} long`);
    next += field.length;
  }
  if (next !== LINE_LENGTH + 1) throw new Error(`layout ${kind}: covers ${next - 1} positions, not ${LINE_LENGTH}`);
}

/**
 * Writes one record: each field from `values` (or its fixed value; numeric fields default to zeros,
 * alphanumeric ones to spaces). A value that does not fit its field is an error, never truncated
 * silently, except alphanumeric text, which is cut to its field (names, messages).
 * @example writeRecord(layout.fileTrailer, { bank_code: '001', batch: 9999, batches: 1, records: 6 })
 */
export function writeRecord(fields: readonly FieldSpec[], values: RecordValues): string {
  let line = '';
  for (const field of fields) {
    const given = values[field.name];
    const raw = given === undefined ? field.fixed : String(given);
    if (field.type === 'N') {
      const digits = raw ?? '';
      if (!/^\d*$/.test(digits)) throw new Error(`${field.name}: ${JSON.stringify(digits)} is not numeric`);
      if (digits.length > field.length) throw new Error(`${field.name}: ${digits} does not fit ${field.length} digits`);
      line += digits.padStart(field.length, '0');
    } else {
      line += cnabText(raw ?? '').slice(0, field.length).padEnd(field.length, ' ');
    }
  }
  if (line.length !== LINE_LENGTH) throw new Error(`a record of ${line.length} characters`);
  return line;
}

/**
 * Reads one record by its table: every numeric field must be digits (a field of spaces is refused
 * too), every fixed field must carry its value. Alphanumeric fields are returned trimmed.
 * @throws CnabFileError naming the line and the field
 */
export function readRecord(fields: readonly FieldSpec[], line: string, lineNumber: number, kind: string): Record<string, string> {
  if (line.length !== LINE_LENGTH) throw new CnabFileError(lineNumber, 'line', `has ${line.length} characters; a CNAB 240 line has ${LINE_LENGTH}`);
  const values: Record<string, string> = {};
  for (const field of fields) {
    const raw = line.slice(field.from - 1, field.from - 1 + field.length);
    const at = `${kind}.${field.name} (positions ${field.from}-${field.from + field.length - 1})`;
    if (field.type === 'N' && !/^\d+$/.test(raw)) throw new CnabFileError(lineNumber, at, `${JSON.stringify(raw)} is not numeric`);
    if (field.fixed !== undefined && field.fixed.trim() !== '' && raw !== field.fixed) throw new CnabFileError(lineNumber, at, `is ${JSON.stringify(raw)}, expected ${JSON.stringify(field.fixed)}`);
    values[field.name] = field.type === 'N' ? raw : raw.trimEnd();
  }
  return values;
}

/** Checks every record table of a layout (run once per bank when a connector is made, and by the tests). */
export function assertLayout(layout: Layout): void {
  for (const kind of Object.keys(layout) as RecordKind[]) assertCovers(kind, layout[kind]);
}

/** A date of the layout (DDMMAAAA) from YYYY-MM-DD, and back; `00000000` is no date. */
export function cnabDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-');
  return `${d}${m}${y}`;
}

/** YYYY-MM-DD of a layout date; null for `00000000` (no date), undefined for a date that does not exist. */
export function isoDateOf(cnab: string): string | null | undefined {
  if (cnab === '00000000') return null;
  const iso = `${cnab.slice(4, 8)}-${cnab.slice(2, 4)}-${cnab.slice(0, 2)}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== iso ? undefined : iso;
}
