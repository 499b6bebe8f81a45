import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { errorResponses } from '../http/schema-kit';
import { formatAmount } from '../lib/money';
import { formatDateTime } from '../lib/time-format';

const tags = ['Admin'];
const security = [{ adminToken: [] }];
const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const FileSchema = Type.Object({
  file_id: Type.String({ format: 'uuid' }),
  direction: Type.Union([Type.Literal('REMESSA'), Type.Literal('RETORNO')]),
  bank_code: Type.String(),
  sequence: nullable(Type.Integer()),
  name: Type.String(),
  status: Type.Union([Type.Literal('WRITING'), Type.Literal('WRITTEN'), Type.Literal('PROCESSED'), Type.Literal('REFUSED')]),
  refusal: nullable(Type.Object({ line: Type.Integer(), field: Type.String(), reason: Type.String() })),
  lines: Type.Integer(),
  sha256: Type.String(),
  created_at: Type.String({ description: 'yyyy-MM-ddTHH:mm:ss.SSSZ' }),
  processed_at: nullable(Type.String({ description: 'yyyy-MM-ddTHH:mm:ss.SSSZ' })),
});

const FindingSchema = Type.Object({
  finding_id: Type.String({ format: 'uuid' }),
  kind: Type.String({ description: 'PAID_TWICE, PAID_AFTER_CLOSE, AMOUNT_DIFFERS, UNKNOWN_BOLETO or UNKNOWN_MOVEMENT' }),
  detail: Type.String(),
  file_id: Type.String({ format: 'uuid' }),
  line: Type.Integer(),
  nosso_numero: Type.String(),
  merchant_id: nullable(Type.String({ format: 'uuid' })),
  payment_token: nullable(Type.String({ format: 'uuid' })),
  amount: nullable(Type.String({ description: 'BRL, as a decimal string' })),
  created_at: Type.String({ description: 'yyyy-MM-ddTHH:mm:ss.SSSZ' }),
  resolved_at: nullable(Type.String({ description: 'yyyy-MM-ddTHH:mm:ss.SSSZ' })),
});

type FileRow = { id: string; direction: 'REMESSA' | 'RETORNO'; bank_code: string; sequence: number | null; name: string; status: 'WRITING' | 'WRITTEN' | 'PROCESSED' | 'REFUSED'; refusal: { line: number; field: string; reason: string } | null; lines: number; content_sha256: string; created_at: Date; processed_at: Date | null };

function fileView(row: FileRow) {
  return {
    file_id: row.id,
    direction: row.direction,
    bank_code: row.bank_code,
    sequence: row.sequence,
    name: row.name,
    status: row.status,
    refusal: row.refusal,
    lines: row.lines,
    sha256: row.content_sha256,
    created_at: formatDateTime(row.created_at),
    processed_at: row.processed_at ? formatDateTime(row.processed_at) : null,
  };
}

const FILE_COLUMNS = ['id', 'direction', 'bank_code', 'sequence', 'name', 'status', 'refusal', 'lines', 'content_sha256', 'created_at', 'processed_at'] as const;
const FINDING_COLUMNS = ['id', 'kind', 'detail', 'file_id', 'line', 'nosso_numero', 'merchant_id', 'payment_token', 'amount_minor', 'created_at', 'resolved_at'] as const;

function findingView(row: { id: string; kind: string; detail: string; file_id: string; line: number; nosso_numero: string; merchant_id: string | null; payment_token: string | null; amount_minor: bigint | null; created_at: Date; resolved_at: Date | null }) {
  return {
    finding_id: row.id,
    kind: row.kind,
    detail: row.detail,
    file_id: row.file_id,
    line: row.line,
    nosso_numero: row.nosso_numero,
    merchant_id: row.merchant_id,
    payment_token: row.payment_token,
    amount: row.amount_minor === null ? null : formatAmount(BigInt(row.amount_minor), 2),
    created_at: formatDateTime(row.created_at),
    resolved_at: row.resolved_at ? formatDateTime(row.resolved_at) : null,
  };
}

/**
 * The operator's view of the boleto bank files (docs/connectors.md, "Boleto"), behind the admin token:
 * the remessas written and retornos read (a refused one with its line and field), a file's content, the
 * findings of the returns (a boleto paid twice, …) and their resolution once the operator acted.
 */
export function registerBoletoFileRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/admin/boleto-files',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Boleto bank files: remessas written and retornos read',
        description: 'Newest first, without their content. A refused retorno carries the line and field at fault.',
        tags,
        security,
        querystring: Type.Object({
          direction: Type.Optional(Type.Union([Type.Literal('REMESSA'), Type.Literal('RETORNO')])),
          status: Type.Optional(Type.Union([Type.Literal('WRITING'), Type.Literal('WRITTEN'), Type.Literal('PROCESSED'), Type.Literal('REFUSED')])),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        }),
        response: { 200: Type.Object({ files: Type.Array(FileSchema) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      let query = ctx.db.selectFrom('boleto_bank_files').select(FILE_COLUMNS).orderBy('created_at', 'desc').limit(request.query.limit ?? 100);
      if (request.query.direction) query = query.where('direction', '=', request.query.direction);
      if (request.query.status) query = query.where('status', '=', request.query.status);
      return { files: (await query.execute()).map(fileView) };
    },
  );

  app.get(
    '/admin/boleto-files/:file_id',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'A boleto bank file with its content',
        tags,
        security,
        params: Type.Object({ file_id: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Intersect([FileSchema, Type.Object({ content: Type.String() })]), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await ctx.db.selectFrom('boleto_bank_files').select([...FILE_COLUMNS, 'content']).where('id', '=', request.params.file_id).executeTakeFirst();
      if (!row) throw new ApiError('BOLETO_FILE_NOT_FOUND');
      return { ...fileView(row), content: row.content };
    },
  );

  app.get(
    '/admin/boleto-findings',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "What the bank's returns left for the operator",
        description: 'A boleto paid twice or after its payment closed (money to return to the payer), an amount other than the boleto\'s, an unknown movement or boleto. Open ones only unless `resolved=true`.',
        tags,
        security,
        querystring: Type.Object({ resolved: Type.Optional(Type.Boolean({ default: false })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
        response: { 200: Type.Object({ findings: Type.Array(FindingSchema) }), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const rows = await ctx.db
        .selectFrom('boleto_findings')
        .select(FINDING_COLUMNS)
        .where('resolved_at', request.query.resolved ? 'is not' : 'is', null)
        .orderBy('created_at', 'desc')
        .limit(request.query.limit ?? 100)
        .execute();
      return { findings: rows.map(findingView) };
    },
  );

  app.post(
    '/admin/boleto-findings/:finding_id/resolve',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Mark a finding resolved',
        description: 'Once the operator acted (returned a second payment to the payer, …). Nothing else changes. A resolved finding answers 409.',
        tags,
        security,
        params: Type.Object({ finding_id: Type.String({ format: 'uuid' }) }),
        response: { 200: FindingSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const updated = await ctx.db.updateTable('boleto_findings').set({ resolved_at: new Date() }).where('id', '=', request.params.finding_id).where('resolved_at', 'is', null).returning(FINDING_COLUMNS).executeTakeFirst();
      if (updated) return findingView(updated);
      const exists = await ctx.db.selectFrom('boleto_findings').select('id').where('id', '=', request.params.finding_id).executeTakeFirst();
      throw new ApiError(exists ? 'BOLETO_FINDING_RESOLVED' : 'BOLETO_FINDING_NOT_FOUND');
    },
  );
}
