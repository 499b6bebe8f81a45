import { ownEntry } from '../../lib/own-entry';

/**
 * The FEBRABAN CNAB 240 layout of collection files (cobrança), as data: one table per record, each field
 * with its 1-based position, its length, its type (`N` numeric: digits, right-aligned, zero-filled;
 * `A` alphanumeric: left-aligned, space-filled) and its name. The common layout comes first; a bank's
 * variations are small overrides by field name (BANK_OVERRIDES). cnab240.ts reads and writes lines by
 * these tables, and checks that each table covers the 240 positions exactly once.
 */

export type FieldType = 'N' | 'A';

export interface FieldSpec {
  readonly name: string;
  /** 1-based position of the first character. */
  readonly from: number;
  readonly length: number;
  readonly type: FieldType;
  /** A value every record of this kind carries (a record type, a segment letter, FEBRABAN's blanks). */
  readonly fixed?: string;
}

export type RecordKind = 'fileHeader' | 'batchHeader' | 'P' | 'Q' | 'R' | 'T' | 'U' | 'batchTrailer' | 'fileTrailer';
export type Layout = Readonly<Record<RecordKind, readonly FieldSpec[]>>;

type Row = readonly [from: number, length: number, type: FieldType, name: string, fixed?: string];

function table(rows: readonly Row[]): FieldSpec[] {
  return rows.map(([from, length, type, name, fixed]) => (fixed === undefined ? { from, length, type, name } : { from, length, type, name, fixed }));
}

/** Control fields every record starts with (G001 bank, G002 batch, G003 record type). */
const CONTROL: readonly Row[] = [
  [1, 3, 'N', 'bank_code'],
  [4, 4, 'N', 'batch'],
];

/** Detail records: control, record number in the batch, segment, movement code. */
function segment(letter: string): Row[] {
  return [...CONTROL, [8, 1, 'N', 'record_type', '3'], [9, 5, 'N', 'record_number'], [14, 1, 'A', 'segment', letter], [15, 1, 'A', 'blank_15', ' '], [16, 2, 'N', 'movement']];
}

/** The beneficiary's account: agency, account and their check digits. */
function account(from: number): Row[] {
  return [
    [from, 5, 'N', 'agency'],
    [from + 5, 1, 'A', 'agency_digit'],
    [from + 6, 12, 'N', 'account'],
    [from + 18, 1, 'A', 'account_digit'],
    [from + 19, 1, 'A', 'agency_account_digit'],
  ];
}

/** FEBRABAN CNAB 240, collection service (layout version 10), as every bank starts from. */
export const FEBRABAN_240: Layout = {
  fileHeader: table([
    ...CONTROL,
    [8, 1, 'N', 'record_type', '0'],
    [9, 9, 'A', 'blank_9'],
    [18, 1, 'N', 'company_document_type'],
    [19, 14, 'N', 'company_document'],
    [33, 20, 'A', 'agreement'],
    ...account(53),
    [73, 30, 'A', 'company_name'],
    [103, 30, 'A', 'bank_name'],
    [133, 10, 'A', 'blank_133'],
    [143, 1, 'N', 'direction'],
    [144, 8, 'N', 'generated_on'],
    [152, 6, 'N', 'generated_at'],
    [158, 6, 'N', 'file_sequence'],
    [164, 3, 'N', 'layout_version'],
    [167, 5, 'N', 'density'],
    [172, 20, 'A', 'bank_reserved'],
    [192, 20, 'A', 'company_reserved'],
    [212, 29, 'A', 'blank_212'],
  ]),
  batchHeader: table([
    ...CONTROL,
    [8, 1, 'N', 'record_type', '1'],
    [9, 1, 'A', 'operation'],
    [10, 2, 'N', 'service', '01'],
    [12, 2, 'A', 'blank_12'],
    [14, 3, 'N', 'batch_layout_version'],
    [17, 1, 'A', 'blank_17'],
    [18, 1, 'N', 'company_document_type'],
    [19, 15, 'N', 'company_document'],
    [34, 20, 'A', 'agreement'],
    ...account(54),
    [74, 30, 'A', 'company_name'],
    [104, 40, 'A', 'message_1'],
    [144, 40, 'A', 'message_2'],
    [184, 8, 'N', 'file_sequence'],
    [192, 8, 'N', 'recorded_on'],
    [200, 8, 'N', 'credited_on'],
    [208, 33, 'A', 'blank_208'],
  ]),
  P: table([
    ...segment('P'),
    ...account(18),
    [38, 20, 'A', 'nosso_numero'],
    [58, 1, 'N', 'wallet_code'],
    [59, 1, 'N', 'registration_form'],
    [60, 1, 'A', 'document_type'],
    [61, 1, 'N', 'issued_by'],
    [62, 1, 'A', 'delivered_by'],
    [63, 15, 'A', 'document_number'],
    [78, 8, 'N', 'due_date'],
    [86, 15, 'N', 'amount'],
    [101, 5, 'N', 'collecting_agency'],
    [106, 1, 'A', 'collecting_agency_digit'],
    [107, 2, 'N', 'kind'],
    [109, 1, 'A', 'acceptance'],
    [110, 8, 'N', 'issued_on'],
    [118, 1, 'N', 'interest_code'],
    [119, 8, 'N', 'interest_date'],
    [127, 15, 'N', 'interest'],
    [142, 1, 'N', 'discount_code'],
    [143, 8, 'N', 'discount_date'],
    [151, 15, 'N', 'discount'],
    [166, 15, 'N', 'iof'],
    [181, 15, 'N', 'rebate'],
    [196, 25, 'A', 'company_reference'],
    [221, 1, 'N', 'protest_code'],
    [222, 2, 'N', 'protest_days'],
    [224, 1, 'N', 'write_off_code'],
    [225, 3, 'A', 'write_off_days'],
    [228, 2, 'N', 'currency', '09'],
    [230, 10, 'N', 'contract'],
    [240, 1, 'A', 'free_use'],
  ]),
  Q: table([
    ...segment('Q'),
    [18, 1, 'N', 'payer_document_type'],
    [19, 15, 'N', 'payer_document'],
    [34, 40, 'A', 'payer_name'],
    [74, 40, 'A', 'payer_address'],
    [114, 15, 'A', 'payer_district'],
    [129, 5, 'N', 'payer_zip'],
    [134, 3, 'N', 'payer_zip_suffix'],
    [137, 15, 'A', 'payer_city'],
    [152, 2, 'A', 'payer_state'],
    [154, 1, 'N', 'guarantor_document_type'],
    [155, 15, 'N', 'guarantor_document'],
    [170, 40, 'A', 'guarantor_name'],
    [210, 3, 'N', 'correspondent_bank'],
    [213, 20, 'A', 'correspondent_nosso_numero'],
    [233, 8, 'A', 'blank_233'],
  ]),
  R: table([
    ...segment('R'),
    [18, 1, 'N', 'discount_2_code'],
    [19, 8, 'N', 'discount_2_date'],
    [27, 15, 'N', 'discount_2'],
    [42, 1, 'N', 'discount_3_code'],
    [43, 8, 'N', 'discount_3_date'],
    [51, 15, 'N', 'discount_3'],
    [66, 1, 'A', 'fine_code'],
    [67, 8, 'N', 'fine_date'],
    [75, 15, 'N', 'fine'],
    [90, 10, 'A', 'payer_information'],
    [100, 40, 'A', 'message_3'],
    [140, 40, 'A', 'message_4'],
    [180, 20, 'A', 'blank_180'],
    [200, 8, 'N', 'payer_occurrence_code'],
    [208, 3, 'N', 'debit_bank'],
    [211, 5, 'N', 'debit_agency'],
    [216, 1, 'A', 'debit_agency_digit'],
    [217, 12, 'N', 'debit_account'],
    [229, 1, 'A', 'debit_account_digit'],
    [230, 1, 'A', 'debit_agency_account_digit'],
    [231, 1, 'N', 'debit_notice'],
    [232, 9, 'A', 'blank_232'],
  ]),
  T: table([
    ...segment('T'),
    ...account(18),
    [38, 20, 'A', 'nosso_numero'],
    [58, 1, 'N', 'wallet_code'],
    [59, 15, 'A', 'document_number'],
    [74, 8, 'N', 'due_date'],
    [82, 15, 'N', 'amount'],
    [97, 3, 'N', 'collecting_bank'],
    [100, 5, 'N', 'collecting_agency'],
    [105, 1, 'A', 'collecting_agency_digit'],
    [106, 25, 'A', 'company_reference'],
    [131, 2, 'N', 'currency'],
    [133, 1, 'N', 'payer_document_type'],
    [134, 15, 'N', 'payer_document'],
    [149, 40, 'A', 'payer_name'],
    [189, 10, 'N', 'contract'],
    [199, 15, 'N', 'tariff'],
    [214, 10, 'A', 'reasons'],
    [224, 17, 'A', 'blank_224'],
  ]),
  U: table([
    ...segment('U'),
    [18, 15, 'N', 'charges'],
    [33, 15, 'N', 'discount'],
    [48, 15, 'N', 'rebate'],
    [63, 15, 'N', 'iof'],
    [78, 15, 'N', 'paid'],
    [93, 15, 'N', 'net_credited'],
    [108, 15, 'N', 'other_expenses'],
    [123, 15, 'N', 'other_credits'],
    [138, 8, 'N', 'occurred_on'],
    [146, 8, 'N', 'credited_on'],
    [154, 4, 'A', 'payer_occurrence'],
    [158, 8, 'N', 'payer_occurrence_date'],
    [166, 15, 'N', 'payer_occurrence_amount'],
    [181, 30, 'A', 'payer_occurrence_text'],
    [211, 3, 'N', 'correspondent_bank'],
    [214, 20, 'N', 'correspondent_nosso_numero'],
    [234, 7, 'A', 'blank_234'],
  ]),
  batchTrailer: table([
    ...CONTROL,
    [8, 1, 'N', 'record_type', '5'],
    [9, 9, 'A', 'blank_9'],
    [18, 6, 'N', 'batch_records'],
    [24, 6, 'N', 'simple_count'],
    [30, 17, 'N', 'simple_total'],
    [47, 6, 'N', 'bound_count'],
    [53, 17, 'N', 'bound_total'],
    [70, 6, 'N', 'pledged_count'],
    [76, 17, 'N', 'pledged_total'],
    [93, 6, 'N', 'discounted_count'],
    [99, 17, 'N', 'discounted_total'],
    [116, 8, 'A', 'notice_number'],
    [124, 117, 'A', 'blank_124'],
  ]),
  fileTrailer: table([
    ...CONTROL,
    [8, 1, 'N', 'record_type', '9'],
    [9, 9, 'A', 'blank_9'],
    [18, 6, 'N', 'batches'],
    [24, 6, 'N', 'records'],
    [30, 6, 'N', 'accounts'],
    [36, 205, 'A', 'blank_36'],
  ]),
};

/** What a bank changes in a record: fields replaced by name (same position and length, another fixed value or type). */
export type LayoutOverride = Partial<Record<RecordKind, Readonly<Record<string, Partial<Omit<FieldSpec, 'name'>>>>>>;

export interface BankProfile {
  readonly code: string;
  readonly name: string;
  /** As written in the file header (positions 103-132). */
  readonly headerName: string;
  readonly fileLayoutVersion: string;
  readonly batchLayoutVersion: string;
  readonly overrides: LayoutOverride;
}

/**
 * The banks Colibri writes files for. Banco do Brasil (001) is the one implemented: its manual "Layout
 * de Arquivo Retorno/Remessa CNAB 240, Cobrança" keeps FEBRABAN's positions and versions the layouts
 * 083 (file) and 042 (batch). docs/connectors.md lists the differences of the others.
 */
export const BANKS: Readonly<Record<string, BankProfile>> = {
  '001': {
    code: '001',
    name: 'Banco do Brasil',
    headerName: 'BANCO DO BRASIL S.A.',
    fileLayoutVersion: '083',
    batchLayoutVersion: '042',
    overrides: {
      // Banco do Brasil leaves the agency/account digit of segment P blank and its contract number zero.
      P: { agency_account_digit: { fixed: ' ' }, contract: { fixed: '0000000000' } },
    },
  },
};

/** A bank's layout: FEBRABAN's, with the bank's overrides applied by field name. */
export function layoutFor(bankCode: string): Layout {
  const bank = ownEntry(BANKS, bankCode);
  if (!bank) throw new Error(`no CNAB 240 profile for bank ${bankCode} (profiles: ${Object.keys(BANKS).join(', ')})`);
  const result = {} as Record<RecordKind, readonly FieldSpec[]>;
  for (const kind of Object.keys(FEBRABAN_240) as RecordKind[]) {
    const changes = bank.overrides[kind] ?? {};
    for (const name of Object.keys(changes)) {
      if (!FEBRABAN_240[kind].some((field) => field.name === name)) throw new Error(`bank ${bankCode} overrides ${kind}.${name}, which FEBRABAN's layout does not have`);
    }
    result[kind] = FEBRABAN_240[kind].map((field) => ({ ...field, ...changes[field.name] }));
  }
  return result;
}
