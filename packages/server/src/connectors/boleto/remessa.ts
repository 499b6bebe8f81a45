import { BANKS, layoutFor } from './cnab240-layout';
import { cnabDate, writeRecord } from './cnab240';

/** The beneficiary (the operator's collection agreement at the bank), as the connector's settings give it. */
export interface Beneficiary {
  readonly bankCode: string;
  /** Banco do Brasil: the 7-digit agreement (convênio), which also starts every nosso número. */
  readonly agreement: string;
  readonly agency: string;
  readonly agencyDigit: string;
  readonly account: string;
  readonly accountDigit: string;
  /** The wallet (carteira), e.g. 17, and its variation, e.g. 019. */
  readonly wallet: string;
  readonly walletVariation: string;
  /** The beneficiary's CNPJ, 14 digits. */
  readonly companyDocument: string;
  readonly companyName: string;
}

/** One instruction of a remessa: register a boleto (segments P, Q and R), or ask its write-off (P alone). */
export interface RemessaEntry {
  readonly movement: 'REGISTER' | 'WRITE_OFF';
  readonly nossoNumero: string;
  /** The beneficiary's number of the title (seu número), at most 15 characters. */
  readonly documentNumber: string;
  /** YYYY-MM-DD */
  readonly dueDate: string;
  readonly amountMinor: bigint;
  /** YYYY-MM-DD */
  readonly issuedOn: string;
  /** The beneficiary's own reference, at most 25 characters (returned in segment T). */
  readonly companyReference: string;
  /** The merchant the boleto is collected for, named as the final beneficiary (sacador/avalista). */
  readonly merchantName: string;
  /** The payer (pagador), which banks require of a registered boleto; without it segment Q carries inscription type 0. */
  readonly payer?: RemessaPayer | undefined;
}

/** The payer of segment Q (positions 18-153; FEBRABAN notes G005, G006, G013, C029-C034). */
export interface RemessaPayer {
  /** Inscription type: 1 CPF, 2 CNPJ. */
  readonly documentType: '1' | '2';
  /** The CPF (11 digits) or CNPJ (14), written right-aligned in 15 digits. */
  readonly document: string;
  readonly name: string;
  /** Street, number and complement in one line (40 characters). */
  readonly address: string;
  /** Bairro (15 characters). */
  readonly district: string;
  /** CEP, 8 digits: the first five and the three-digit suffix are two fields. */
  readonly postalCode: string;
  readonly city: string;
  /** UF, two letters. */
  readonly state: string;
}

export interface RemessaInput {
  readonly beneficiary: Beneficiary;
  /** The file's sequence number (NSA), one more than the last remessa's. */
  readonly sequence: number;
  /** Date and time of generation in Brasília: YYYY-MM-DD and HHMMSS. */
  readonly generatedOn: string;
  readonly generatedAt: string;
  readonly entries: readonly RemessaEntry[];
}

/** Movement codes of a remessa (segment P, positions 16-17, note C004). */
export const REMESSA_MOVEMENTS = { REGISTER: '01', WRITE_OFF: '02' } as const;

/** Banco do Brasil's agreement field (positions 33-52 of the headers): agreement (9), 0014, wallet (2), variation (3), two blanks. */
function agreementField(b: Beneficiary): string {
  return `${b.agreement.padStart(9, '0')}0014${b.wallet}${b.walletVariation}  `;
}

/** Segment Q's payer fields; without a payer, inscription type 0 and blanks (a strict bank rejects it: reasons 45-48). */
function payerFields(payer: RemessaPayer | undefined): Record<string, string> {
  if (!payer) return { payer_document_type: '0', payer_document: '0' };
  if (!/^\d{8}$/.test(payer.postalCode)) throw new Error('payer postal code: a CEP has 8 digits');
  return {
    payer_document_type: payer.documentType,
    payer_document: payer.document,
    payer_name: payer.name,
    payer_address: payer.address,
    payer_district: payer.district,
    payer_zip: payer.postalCode.slice(0, 5),
    payer_zip_suffix: payer.postalCode.slice(5),
    payer_city: payer.city,
    payer_state: payer.state,
  };
}

/** Banco do Brasil's wallet code of segment P (position 58): 7 for wallet 17 in the simple modality, 1 for 11 and 12. */
function walletCode(wallet: string): string {
  return wallet === '17' ? '7' : '1';
}

/**
 * A remessa in CNAB 240 for one bank: file header, one batch (header, segments P, Q and R per boleto to
 * register, P alone per write-off, trailer with the count of its records and the total of the
 * boletos registered), file trailer with the counts of batches and records. Lines end with CR LF, as
 * banks' transfer systems expect.
 * @example buildRemessa({ beneficiary, sequence: 1, generatedOn: '2026-03-02', generatedAt: '101500', entries }).content
 */
export function buildRemessa(input: RemessaInput): { content: string; lines: number; registeredMinor: bigint } {
  const b = input.beneficiary;
  const bank = BANKS[b.bankCode];
  if (!bank) throw new Error(`no CNAB 240 profile for bank ${b.bankCode}`);
  const layout = layoutFor(b.bankCode);
  const common = { bank_code: b.bankCode, agency: b.agency, agency_digit: b.agencyDigit, account: b.account, account_digit: b.accountDigit };
  const company = { company_document_type: '2', company_document: b.companyDocument, agreement: agreementField(b), company_name: b.companyName };
  const lines: string[] = [];
  lines.push(writeRecord(layout.fileHeader, {
    ...common,
    ...company,
    batch: '0000',
    bank_name: bank.headerName,
    direction: '1',
    generated_on: cnabDate(input.generatedOn),
    generated_at: input.generatedAt,
    file_sequence: input.sequence,
    layout_version: bank.fileLayoutVersion,
    density: '00000',
  }));
  const batch = '0001';
  lines.push(writeRecord(layout.batchHeader, {
    ...common,
    ...company,
    batch,
    operation: 'R',
    batch_layout_version: bank.batchLayoutVersion,
    file_sequence: input.sequence,
    recorded_on: cnabDate(input.generatedOn),
    credited_on: '00000000',
  }));
  let record = 0;
  let registered = 0;
  let registeredMinor = 0n;
  for (const entry of input.entries) {
    const movement = REMESSA_MOVEMENTS[entry.movement];
    const head = { ...common, batch, movement };
    lines.push(writeRecord(layout.P, {
      ...head,
      record_number: ++record,
      nosso_numero: entry.nossoNumero,
      wallet_code: walletCode(b.wallet),
      registration_form: '1',
      document_type: '1',
      issued_by: '2',
      delivered_by: '2',
      document_number: entry.documentNumber,
      due_date: cnabDate(entry.dueDate),
      amount: entry.amountMinor,
      kind: '17',
      acceptance: 'N',
      issued_on: cnabDate(entry.issuedOn),
      interest_code: '3',
      discount_code: '0',
      company_reference: entry.companyReference,
      protest_code: '3',
      protest_days: '00',
      write_off_code: '1',
      write_off_days: '001',
    }));
    if (entry.movement === 'WRITE_OFF') continue;
    registered += 1;
    registeredMinor += entry.amountMinor;
    lines.push(writeRecord(layout.Q, {
      ...head,
      record_number: ++record,
      ...payerFields(entry.payer),
      guarantor_document_type: '0',
      guarantor_name: entry.merchantName,
    }));
    lines.push(writeRecord(layout.R, {
      ...head,
      record_number: ++record,
      fine_code: '0',
      message_3: `PAGAVEL ATE ${cnabDate(entry.dueDate).replace(/^(\d\d)(\d\d)(\d{4})$/, '$1/$2/$3')}`,
    }));
  }
  lines.push(writeRecord(layout.batchTrailer, { bank_code: b.bankCode, batch, batch_records: record + 2, simple_count: registered, simple_total: registeredMinor }));
  lines.push(writeRecord(layout.fileTrailer, { bank_code: b.bankCode, batch: '9999', batches: 1, records: lines.length + 1 }));
  return { content: `${lines.join('\r\n')}\r\n`, lines: lines.length, registeredMinor };
}
