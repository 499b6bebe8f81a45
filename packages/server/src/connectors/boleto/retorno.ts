import { layoutFor } from './cnab240-layout';
import { CnabFileError, isoDateOf, readRecord } from './cnab240';
import { reasonCodes } from './boleto-codes';

/** One occurrence of a return: a pair of segments T and U about one boleto. */
export interface ReturnOccurrence {
  /** The line of its segment T (1-based). */
  readonly line: number;
  readonly movement: string;
  readonly nossoNumero: string;
  readonly documentNumber: string;
  readonly companyReference: string;
  readonly amountMinor: bigint;
  readonly tariffMinor: bigint;
  readonly reasons: readonly string[];
  readonly paidMinor: bigint;
  readonly netCreditedMinor: bigint;
  readonly chargesMinor: bigint;
  readonly discountMinor: bigint;
  /** YYYY-MM-DD, or null when the bank gave none. */
  readonly occurredOn: string | null;
  readonly creditedOn: string | null;
}

export interface Retorno {
  readonly bankCode: string;
  /** The file's sequence number (NSA, file header positions 158-163). */
  readonly sequence: number;
  readonly generatedOn: string | null;
  readonly agreement: string;
  readonly occurrences: readonly ReturnOccurrence[];
}

/**
 * Reads a return file of `bankCode` whole, or refuses it whole: every line 240 characters, a file header
 * (a return: code 2) of this bank first, batches of collection (header, pairs of segments T and U
 * numbered in order, trailer counting its records), a file trailer counting the batches and records
 * last, every numeric field digits and every date a date. Nothing is applied from a file refused.
 * @throws CnabFileError naming the line and the field at fault
 */
export function parseRetorno(content: string, bankCode: string): Retorno {
  const layout = layoutFor(bankCode);
  const lines = content.replace(/(\r?\n)+$/, '').split(/\r?\n/);
  const at = (index: number) => index + 1;
  const typeOf = (line: string | undefined) => line?.slice(7, 8);
  if (lines.length < 4 || (lines.length === 1 && lines[0] === '')) throw new CnabFileError(lines.length, 'file', 'a return has at least a file header, a batch header, a batch trailer and a file trailer');
  const header = readRecord(layout.fileHeader, lines[0]!, 1, 'file header');
  if (header.bank_code !== bankCode) throw new CnabFileError(1, 'file header.bank_code (positions 1-3)', `is ${header.bank_code}; this connector reads bank ${bankCode}'s files`);
  if (header.direction !== '2') throw new CnabFileError(1, 'file header.direction (position 143)', `is ${header.direction}; a return file has 2 (a remessa has 1)`);
  const occurrences: ReturnOccurrence[] = [];
  let index = 1;
  let batches = 0;
  while (typeOf(lines[index]) === '1') {
    batches += 1;
    const batchStart = index;
    const batchHeader = readRecord(layout.batchHeader, lines[index]!, at(index), 'batch header');
    const batch = batchHeader.batch!;
    index += 1;
    let expected = 1;
    while (typeOf(lines[index]) === '3') {
      const t = readRecord(layout.T, lines[index]!, at(index), 'segment T');
      checkDetail(t, batch, expected, at(index), 'segment T');
      const uLine = lines[index + 1];
      if (uLine === undefined || typeOf(uLine) !== '3' || uLine.slice(13, 14) !== 'U') throw new CnabFileError(at(index + 1), 'segment U', 'a segment T must be followed by its segment U');
      const u = readRecord(layout.U, uLine, at(index + 1), 'segment U');
      checkDetail(u, batch, expected + 1, at(index + 1), 'segment U');
      if (u.movement !== t.movement) throw new CnabFileError(at(index + 1), 'segment U.movement (positions 16-17)', `is ${u.movement}, its segment T's is ${t.movement}`);
      occurrences.push({
        line: at(index),
        movement: t.movement!,
        nossoNumero: t.nosso_numero!.trim(),
        documentNumber: t.document_number!.trim(),
        companyReference: t.company_reference!.trim(),
        amountMinor: BigInt(t.amount!),
        tariffMinor: BigInt(t.tariff!),
        reasons: reasonCodes(t.reasons!.padEnd(10, ' ')),
        paidMinor: BigInt(u.paid!),
        netCreditedMinor: BigInt(u.net_credited!),
        chargesMinor: BigInt(u.charges!),
        discountMinor: BigInt(u.discount!),
        occurredOn: dateField(u.occurred_on!, at(index + 1), 'segment U.occurred_on (positions 138-145)'),
        creditedOn: dateField(u.credited_on!, at(index + 1), 'segment U.credited_on (positions 146-153)'),
      });
      expected += 2;
      index += 2;
    }
    if (typeOf(lines[index]) !== '5') throw new CnabFileError(at(index), 'record_type (position 8)', `is ${JSON.stringify(typeOf(lines[index]) ?? 'the end of the file')}; batch ${batch} must end with its trailer (5)`);
    const trailer = readRecord(layout.batchTrailer, lines[index]!, at(index), 'batch trailer');
    if (trailer.batch !== batch) throw new CnabFileError(at(index), 'batch trailer.batch (positions 4-7)', `is ${trailer.batch}, its header's is ${batch}`);
    const records = index - batchStart + 1;
    if (Number(trailer.batch_records) !== records) throw new CnabFileError(at(index), 'batch trailer.batch_records (positions 18-23)', `counts ${Number(trailer.batch_records)} records; batch ${batch} has ${records}`);
    index += 1;
  }
  if (typeOf(lines[index]) !== '9') throw new CnabFileError(at(index), 'record_type (position 8)', `is ${JSON.stringify(typeOf(lines[index]) ?? 'the end of the file')}; expected a batch header (1) or the file trailer (9)`);
  const trailer = readRecord(layout.fileTrailer, lines[index]!, at(index), 'file trailer');
  if (Number(trailer.batches) !== batches) throw new CnabFileError(at(index), 'file trailer.batches (positions 18-23)', `counts ${Number(trailer.batches)} batches; the file has ${batches}`);
  if (Number(trailer.records) !== index + 1) throw new CnabFileError(at(index), 'file trailer.records (positions 24-29)', `counts ${Number(trailer.records)} records; the file has ${index + 1}`);
  if (index + 1 !== lines.length) throw new CnabFileError(at(index + 1), 'line', 'nothing may follow the file trailer');
  return {
    bankCode,
    sequence: Number(header.file_sequence),
    generatedOn: dateField(header.generated_on!, 1, 'file header.generated_on (positions 144-151)'),
    agreement: header.agreement!,
    occurrences,
  };
}

function checkDetail(values: Record<string, string>, batch: string, expected: number, line: number, kind: string): void {
  if (values.batch !== batch) throw new CnabFileError(line, `${kind}.batch (positions 4-7)`, `is ${values.batch}, its batch is ${batch}`);
  if (Number(values.record_number) !== expected) throw new CnabFileError(line, `${kind}.record_number (positions 9-13)`, `is ${Number(values.record_number)}, expected ${expected}`);
}

function dateField(value: string, line: number, field: string): string | null {
  const iso = isoDateOf(value);
  if (iso === undefined) throw new CnabFileError(line, field, `${value} is not a date (DDMMAAAA)`);
  return iso;
}
