import Ajv, { type ValidateFunction } from 'ajv';

/**
 * JSON Schemas of the API Pix operations Colibri uses, written for the fake PSP from the Banco Central's
 * published OpenAPI (API Pix 2.8, `openapi.yaml`): `CobSolicitada` (PUT /cob/{txid}), `CobRevisada`
 * (PATCH /cob/{txid}), `DevolucaoSolicitada` (PUT /pix/{e2eid}/devolucao/{id}), the `/pix` webhook body
 * (`{pix: Pix[]}`) and the path parameters. Two deliberate differences from the published text: patterns
 * are anchored (the OpenAPI's are written unanchored, but mean whole values), and objects refuse fields
 * the standard does not define, so that a misspelt field fails a test instead of being ignored.
 */

export const TXID = /^[a-zA-Z0-9]{26,35}$/;
export const END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
export const DEVOLUCAO_ID = /^[a-zA-Z0-9]{1,35}$/;

const valor = { type: 'string', pattern: '^\\d{1,10}\\.\\d{2}$' };
const pessoa = (document: 'cpf' | 'cnpj') => ({
  type: 'object',
  required: [document, 'nome'],
  additionalProperties: false,
  properties: { [document]: { type: 'string', pattern: document === 'cpf' ? '^\\d{11}$' : '^\\d{14}$' }, nome: { type: 'string', maxLength: 200 } },
});
const cobBase = {
  calendario: { type: 'object', additionalProperties: false, properties: { expiracao: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } } },
  devedor: { oneOf: [pessoa('cpf'), pessoa('cnpj')] },
  loc: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'integer' } } },
  valor: {
    type: 'object',
    additionalProperties: false,
    properties: { original: valor, modalidadeAlteracao: { type: 'integer', minimum: 0, maximum: 1 }, retirada: { type: 'object' } },
  },
  chave: { type: 'string', minLength: 1, maxLength: 77 },
  solicitacaoPagador: { type: 'string', maxLength: 140 },
  infoAdicionais: {
    type: 'array',
    maxItems: 50,
    items: { type: 'object', required: ['nome', 'valor'], additionalProperties: false, properties: { nome: { type: 'string', maxLength: 50 }, valor: { type: 'string', maxLength: 200 } } },
  },
};

export const SCHEMAS = {
  CobSolicitada: {
    type: 'object',
    required: ['valor', 'chave', 'calendario'],
    additionalProperties: false,
    properties: { ...cobBase, valor: { ...cobBase.valor, required: ['original'] } },
  },
  CobRevisada: {
    type: 'object',
    additionalProperties: false,
    properties: { ...cobBase, status: { type: 'string', enum: ['REMOVIDA_PELO_USUARIO_RECEBEDOR'] } },
  },
  DevolucaoSolicitada: {
    type: 'object',
    required: ['valor'],
    additionalProperties: false,
    properties: { valor, natureza: { type: 'string', enum: ['ORIGINAL', 'RETIRADA'] }, descricao: { type: 'string', maxLength: 140 } },
  },
  WebhookPixBody: {
    type: 'object',
    required: ['pix'],
    additionalProperties: false,
    properties: {
      pix: {
        type: 'array',
        items: {
          type: 'object',
          required: ['endToEndId', 'valor', 'horario'],
          additionalProperties: false,
          properties: {
            endToEndId: { type: 'string', pattern: END_TO_END_ID.source },
            txid: { type: 'string', pattern: '^[a-zA-Z0-9]{1,35}$' },
            valor,
            chave: { type: 'string', maxLength: 77 },
            horario: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' },
            infoPagador: { type: 'string', maxLength: 140 },
            devolucoes: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'rtrId', 'valor', 'horario', 'status'],
                additionalProperties: false,
                properties: {
                  id: { type: 'string', pattern: DEVOLUCAO_ID.source },
                  rtrId: { type: 'string', pattern: END_TO_END_ID.source },
                  valor,
                  natureza: { type: 'string', enum: ['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO'] },
                  descricao: { type: 'string', maxLength: 140 },
                  horario: { type: 'object', additionalProperties: false, properties: { solicitacao: { type: 'string' }, liquidacao: { type: 'string' } } },
                  status: { type: 'string', enum: ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] },
                  motivo: { type: 'string', maxLength: 140 },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

export type SchemaName = keyof typeof SCHEMAS;

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<SchemaName, ValidateFunction>(Object.entries(SCHEMAS).map(([name, schema]) => [name as SchemaName, ajv.compile(schema)]));

/** The ways a value breaks a schema of the standard; empty when it conforms. */
export function apiPixProblems(name: SchemaName, value: unknown): string[] {
  const validate = compiled.get(name)!;
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${name}${e.instancePath}: ${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
}
