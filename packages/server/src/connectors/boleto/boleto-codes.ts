import type { OutcomeCode } from '../../processor/outcome-codes';

/**
 * The bank's vocabulary in a CNAB 240 return (FEBRABAN's notes C044 and C047) translated into Colibri's.
 * These tables are the whole of the translation; docs/connectors.md prints them and a test checks the
 * page against them.
 */

/** What an occurrence does to a boleto in Colibri. */
export type BoletoEventKind = 'REGISTERED' | 'REJECTED' | 'PAID' | 'WRITTEN_OFF' | 'NOTED';

/** Movement codes of a return (segment T, positions 16-17, note C044). An unlisted code is kept as a finding. */
export const RETURN_MOVEMENTS: Readonly<Record<string, { readonly kind: BoletoEventKind; readonly bank: string }>> = {
  '02': { kind: 'REGISTERED', bank: 'Entrada confirmada' },
  '03': { kind: 'REJECTED', bank: 'Entrada rejeitada' },
  '04': { kind: 'NOTED', bank: 'Transferência de carteira/entrada' },
  '05': { kind: 'NOTED', bank: 'Transferência de carteira/baixa' },
  '06': { kind: 'PAID', bank: 'Liquidação' },
  '07': { kind: 'NOTED', bank: 'Confirmação do recebimento da instrução de desconto' },
  '09': { kind: 'WRITTEN_OFF', bank: 'Baixa' },
  '11': { kind: 'NOTED', bank: 'Títulos em carteira (em ser)' },
  '12': { kind: 'NOTED', bank: 'Confirmação recebimento instrução de abatimento' },
  '14': { kind: 'NOTED', bank: 'Confirmação recebimento instrução alteração de vencimento' },
  '17': { kind: 'PAID', bank: 'Liquidação após baixa ou liquidação título não registrado' },
  '19': { kind: 'NOTED', bank: 'Confirmação recebimento instrução de protesto' },
  '23': { kind: 'NOTED', bank: 'Remessa a cartório' },
  '25': { kind: 'WRITTEN_OFF', bank: 'Protestado e baixado' },
  '26': { kind: 'NOTED', bank: 'Instrução rejeitada' },
  '27': { kind: 'NOTED', bank: 'Confirmação do pedido de alteração de outros dados' },
  '28': { kind: 'NOTED', bank: 'Débito de tarifas/custas' },
  '30': { kind: 'NOTED', bank: 'Alteração de dados rejeitada' },
};

/**
 * Why the bank refused a registration (movement 03; segment T positions 214-223: up to five reasons of
 * two digits, note C047-A), and Colibri's code. The beneficiary's own data (agreement, agency, account,
 * wallet) refused is the operator's configuration: `CONNECTOR_AUTH`. A registration the bank already
 * has (63) is no refusal: the remessa was delivered twice, and the boleto stands registered.
 */
export const REJECTION_REASONS: Readonly<Record<string, { readonly code: OutcomeCode | 'ALREADY_REGISTERED'; readonly bank: string; readonly description: string }>> = {
  '01': { code: 'INVALID_REQUEST', bank: 'Código do banco inválido', description: 'The bank code of the file is not the bank\'s' },
  '04': { code: 'INVALID_REQUEST', bank: 'Código de movimento não permitido para carteira', description: 'The wallet does not take this instruction' },
  '05': { code: 'INVALID_REQUEST', bank: 'Código de movimento inválido', description: 'Unknown instruction' },
  '06': { code: 'CONNECTOR_AUTH', bank: 'Tipo/número de inscrição do beneficiário inválidos', description: "The beneficiary's CNPJ is not the agreement's" },
  '07': { code: 'CONNECTOR_AUTH', bank: 'Agência/conta/DV inválido', description: "The beneficiary's agency or account is wrong" },
  '08': { code: 'INVALID_REQUEST', bank: 'Nosso número inválido', description: "The boleto's number (nosso número) is invalid" },
  '09': { code: 'INVALID_REQUEST', bank: 'Nosso número duplicado', description: "The boleto's number (nosso número) is already in use" },
  '10': { code: 'CONNECTOR_AUTH', bank: 'Carteira inválida', description: 'The wallet (carteira) is not the agreement\'s' },
  '16': { code: '13', bank: 'Data de vencimento inválida', description: 'The due date is invalid' },
  '17': { code: '13', bank: 'Data de vencimento anterior a data de emissão', description: 'The due date is before the issue date' },
  '18': { code: '13', bank: 'Vencimento fora do prazo de operação', description: 'The due date is outside the agreement\'s term' },
  '20': { code: '13', bank: 'Valor do título inválido', description: 'The amount is invalid' },
  '21': { code: 'INVALID_REQUEST', bank: 'Espécie do título inválida', description: 'The kind of title is invalid' },
  '22': { code: 'INVALID_REQUEST', bank: 'Espécie do título não permitida para a carteira', description: 'The wallet does not take this kind of title' },
  '24': { code: 'INVALID_REQUEST', bank: 'Data da emissão inválida', description: 'The issue date is invalid' },
  '44': { code: 'INVALID_REQUEST', bank: 'Código da moeda inválido', description: 'The currency is invalid' },
  '45': { code: 'INVALID_REQUEST', bank: 'Nome do pagador não informado', description: "The payer's name is missing" },
  '46': { code: 'INVALID_REQUEST', bank: 'Tipo/número de inscrição do pagador inválidos', description: "The payer's CPF or CNPJ is missing or invalid" },
  '47': { code: 'INVALID_REQUEST', bank: 'Endereço do pagador não informado', description: "The payer's address is missing" },
  '48': { code: 'INVALID_REQUEST', bank: 'CEP inválido', description: "The payer's postal code is invalid" },
  '53': { code: 'INVALID_REQUEST', bank: 'Tipo/número de inscrição do sacador/avalista inválidos', description: "The final beneficiary's CPF or CNPJ is invalid" },
  '54': { code: 'INVALID_REQUEST', bank: 'Sacador/avalista não informado', description: 'The final beneficiary is missing' },
  '60': { code: 'INVALID_REQUEST', bank: 'Movimento para título não cadastrado', description: 'The bank has no such boleto' },
  '63': { code: 'ALREADY_REGISTERED', bank: 'Entrada para título já cadastrado', description: 'The boleto is already registered' },
};

/** The reason given when a rejection carries none Colibri knows. */
export const UNKNOWN_REJECTION = { code: 'INVALID_REQUEST', description: 'The bank refused the registration' } as const;

/** How a boleto was paid (movements 06 and 17, note C047-B); informational, kept with the payment. */
export const PAYMENT_CHANNELS: Readonly<Record<string, string>> = {
  '01': 'by balance',
  '02': 'by account',
  '03': 'cash at a branch',
  '04': 'electronic clearing',
  '05': 'conventional clearing',
  '06': 'electronic channel',
  '30': 'cheque at a branch',
  '31': 'correspondent bank',
  '32': 'self-service terminal',
  '33': 'internet banking',
  '37': 'telephone banking',
  '61': 'PIX',
};

/** Why a boleto was written off (movement 09, note C047-C). */
export const WRITE_OFF_REASONS: Readonly<Record<string, string>> = {
  '09': 'by the bank',
  '10': "at the beneficiary's request, by file",
  '11': "at the beneficiary's request, online",
  '12': 'past its term, as the beneficiary set',
  '13': 'past its term, as the bank set',
  '14': 'protested',
  '15': 'title excluded',
};

/** The two-digit reasons of a return (positions 214-223), blanks and zeros dropped. @example reasonCodes('0916      ') // ['09', '16'] */
export function reasonCodes(field: string): string[] {
  const codes: string[] = [];
  for (let i = 0; i + 2 <= field.length; i += 2) {
    const code = field.slice(i, i + 2);
    if (code.trim() !== '' && code !== '00') codes.push(code);
  }
  return codes;
}

/**
 * A rejection in Colibri's words: the first reason Colibri knows decides the code; every reason is
 * named in the description. Null when the bank says the boleto already stands registered (63).
 */
export function translateRejection(reasons: readonly string[]): { code: OutcomeCode; description: string } | null {
  if (reasons.includes('63')) return null;
  const known = reasons.map((r) => REJECTION_REASONS[r]).filter((r) => r !== undefined);
  const first = known[0];
  const code = first && first.code !== 'ALREADY_REGISTERED' ? first.code : UNKNOWN_REJECTION.code;
  const described = reasons.map((r) => `${r} ${REJECTION_REASONS[r]?.description ?? 'unknown reason'}`).join('; ');
  return { code, description: `${UNKNOWN_REJECTION.description}${described ? `: ${described}` : ''}` };
}
