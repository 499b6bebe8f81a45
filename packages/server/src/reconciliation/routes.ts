import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { App, AppContext } from '../context';
import { ApiError } from '../http/errors';
import { PageSchema, springPage } from '../http/page';
import { errorResponses } from '../http/schema-kit';
import { CsvSyntaxError } from './csv-records';
import { importSettlementReport, type ImportResult } from './import-report';
import { installReconciliationMetrics } from './metrics';
import { importPixReceipts } from './pix-reconciliation';
import { resolveLine } from './resolve-line';
import { listLines, listRuns, loadRun } from './run-record';
import { ImportQuery, LineSchema, LinesQuery, ResolveBody, RunSchema, RunWithLinesSchema } from './schemas';
import { ReportFormatError } from './settlement-details-format';

const tags = ['Admin'];
const security = [{ adminToken: [] }];
/** Who the operator is: the admin token names no one, so a resolution says it in this header. */
const OPERATOR = /^[\x20-\x7e]{1,100}$/;

/**
 * Reconciliation (CONTRACTS.md, "Balance, settlements and reconciliation"; docs/reconciliation.md), behind
 * the admin token: importing a processor's report, the runs and their lines that did not match, and an
 * operator's resolution of a line. Also the mismatch series of /metrics.
 */
export async function registerReconciliationRoutes(app: App, ctx: AppContext, registry: Registry): Promise<void> {
  installReconciliationMetrics(registry, ctx.db);

  await app.register(async (scope) => {
    // A report is read from the request as it arrives (import-report.ts): the parser only admits it.
    scope.addContentTypeParser('text/csv', (_request, _payload, done) => done(null, undefined));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/admin/reconciliation/imports',
      {
        config: { auth: 'admin', keyedByContent: true },
        schema: {
          summary: "Import a processor's report and reconcile it",
          description:
            'processor=adyen (or sandbox): the Settlement details report as text/csv. processor=pix with from and to: the PSP\'s received PIX of those days, fetched (no body). ' +
            'Answers the run (201); the same file again answers its first run (200) and changes nothing. A malformed file is refused whole, naming the line and column. ' +
            'X-Operator, when given, is kept as who imported it.',
          tags,
          security,
          querystring: ImportQuery,
          response: { 200: RunSchema, 201: RunSchema, ...errorResponses(400, 401, 413, 415, 422, 502) },
        },
      },
      async (request, reply) => {
        const { processor } = request.query;
        const importedBy = operatorOf(request.headers['x-operator'], false);
        let result: ImportResult;
        if (processor === 'pix') {
          result = await importPixReceipts(ctx, { from: request.query.from, to: request.query.to, importedBy });
        } else {
          const type = String(request.headers['content-type'] ?? '');
          if (!/^text\/csv\b/i.test(type)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Content-Type: a ${processor} report is sent as text/csv.`);
          try {
            result = await importSettlementReport(ctx.db, { processor, body: request.raw, importedBy });
          } catch (error) {
            // Refused before the body was read to its end: the rest is not read, and the connection not reused.
            if (error instanceof ReportFormatError || error instanceof CsvSyntaxError) reply.header('connection', 'close');
            throw refusalOf(error);
          }
        }
        return reply.code(result.repeated ? 200 : 201).send(result.run);
      },
    );
  });

  app.get(
    '/admin/reconciliation/runs',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Reconciliation runs',
        description: 'Newest first, as a page object.',
        tags,
        security,
        querystring: Type.Object({ page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }), size: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) }),
        response: { 200: PageSchema(RunSchema, 'ReconciliationRunPage'), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { runs, total } = await listRuns(ctx.db, request.query.page, request.query.size);
      return springPage(runs, total, request.query);
    },
  );

  app.get(
    '/admin/reconciliation/runs/:run_id',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'A reconciliation run and its lines that did not match',
        description: 'The run\'s counts, and its lines that did not match, each with its reason, as a page object (`unmatched`; filters reason and status).',
        tags,
        security,
        params: Type.Object({ run_id: Type.String({ format: 'uuid' }) }),
        querystring: LinesQuery,
        response: { 200: RunWithLinesSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const run = await loadRun(ctx.db, request.params.run_id);
      if (!run) throw new ApiError('RECONCILIATION_RUN_NOT_FOUND');
      const { lines, total } = await listLines(ctx.db, run.run_id, request.query);
      return { ...run, unmatched: springPage(lines, total, request.query) };
    },
  );

  app.post(
    '/admin/reconciliation/runs/:run_id/lines/:line_id/resolve',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Resolve a line that did not match',
        description:
          'Marks the line RESOLVED, with the operator (X-Operator, required) and, when money must move, an adjustment of the merchant\'s balance: a journal of kind adjustment ' +
          'and an ADJUSTMENT balance transaction, with its reason. Nothing else is edited. A resolved line answers 409.',
        tags,
        security,
        params: Type.Object({ run_id: Type.String({ format: 'uuid' }), line_id: Type.String({ format: 'uuid' }) }),
        body: ResolveBody,
        response: { 200: LineSchema, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (request) => {
      const operator = operatorOf(request.headers['x-operator'], true) as string;
      const { adjustment, note } = request.body;
      return resolveLine(ctx.db, {
        runId: request.params.run_id,
        lineId: request.params.line_id,
        operator,
        note,
        adjustment: adjustment && { merchantId: adjustment.merchant_id, amount: adjustment.amount, currency: adjustment.currency, reason: adjustment.reason },
      });
    },
  );
}

function operatorOf(header: string | string[] | undefined, required: boolean): string | null {
  const value = typeof header === 'string' ? header.trim() : undefined;
  if (value === undefined || value === '') {
    if (required) throw new ApiError('RECONCILIATION_OPERATOR_REQUIRED');
    return null;
  }
  if (!OPERATOR.test(value)) throw new ApiError('RECONCILIATION_OPERATOR_REQUIRED', 'X-Operator: must be 1 to 100 printable ASCII characters.');
  return value;
}

/** A refused file in the catalogue's words, naming the line and the column. */
function refusalOf(error: unknown): unknown {
  if (error instanceof ReportFormatError) {
    const key = error.kind === 'HEADER' ? 'RECONCILIATION_HEADER_INVALID' : error.kind === 'COLUMN_COUNT' ? 'RECONCILIATION_COLUMN_COUNT' : 'RECONCILIATION_VALUE_INVALID';
    return new ApiError(key, `${error.message}. Nothing was stored.`);
  }
  if (error instanceof CsvSyntaxError) {
    const where = `line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}`;
    return new ApiError(error.kind === 'TOO_LARGE' ? 'RECONCILIATION_FILE_TOO_LARGE' : 'RECONCILIATION_FILE_INVALID', `${where}: ${error.message}. Nothing was stored.`);
  }
  return error;
}
