import { Type } from 'typebox';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { createReport } from './create-report';
import { deleteReport } from './delete-report';
import { exportReport } from './export-report';
import { listReports } from './list-reports';
import { readReport } from './read-report';
import { ExportQuery, ListReportsQuery, ReportBody, ReportIdParams, ReportPageResponse, ReportResponse } from './schemas';
import { updateReport } from './update-report';

/** `{reports_base_url}` is `{base_url}/reports` (contract, Running it). */
const BASE = '/reports/myreports/report';

/**
 * Saved reports (docs/reports.md): the spec's list and update, and the contract's create, read, delete
 * and export. Every route answers 401 with the reports body `{message, code: 0, details: {}}`.
 * @example registerReportRoutes(app, ctx);
 */
export function registerReportRoutes(app: App, ctx: AppContext): void {
  const config = { unauthorizedBody: 'reports' as const };
  const tags = ['Reports'];

  app.get(
    BASE,
    {
      config,
      schema: {
        summary: 'List saved reports',
        description: 'A page of the merchant\'s reports by id. `reportName` keeps names that contain it, ignoring case; `size` 1 to 100 (default 20); `page` from 0.',
        tags,
        querystring: ListReportsQuery,
        response: { 200: ReportPageResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => listReports(ctx.db, principalOf(request).merchantId, request.query),
  );

  app.post(
    BASE,
    {
      config,
      schema: {
        summary: 'Create a report',
        description: 'Validates the definition against the field catalogue and stores it; answers 201 with the Report as stored.',
        tags,
        body: ReportBody,
        response: { 201: ReportResponse, ...errorResponses(400, 401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await createReport(ctx.db, principalOf(request).merchantId, request.body)),
  );

  app.get(
    `${BASE}/:reportId`,
    {
      config,
      schema: { summary: 'Read a report', tags, params: ReportIdParams, response: { 200: ReportResponse, ...errorResponses(401, 404) } },
    },
    async (request) => readReport(ctx.db, principalOf(request).merchantId, request.params.reportId),
  );

  app.put(
    `${BASE}/:reportId`,
    {
      config,
      schema: {
        summary: 'Update a report',
        description: 'Replaces the definition with a complete Report; answers the Report as stored, filters by ascending position.',
        tags,
        params: ReportIdParams,
        body: ReportBody,
        response: { 200: ReportResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => updateReport(ctx.db, principalOf(request).merchantId, request.params.reportId, request.body),
  );

  app.delete(
    `${BASE}/:reportId`,
    {
      config,
      schema: { summary: 'Delete a report', tags, params: ReportIdParams, response: { 204: Type.Null({ description: 'deleted' }), ...errorResponses(401, 404) } },
    },
    async (request, reply) => {
      await deleteReport(ctx.db, principalOf(request).merchantId, request.params.reportId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${BASE}/:reportId/export`,
    {
      config,
      schema: {
        summary: 'Export a report',
        description:
          "Runs the report over the merchant's own rows and streams them: CSV (RFC 4180, a header row of aliases) or JSON (an array of objects keyed by alias). With `count=true` the rows are counted first and the `X-Total-Count` header gives their number.",
        tags,
        params: ReportIdParams,
        querystring: ExportQuery,
        produces: ['text/csv', 'application/json'],
        response: errorResponses(400, 401, 404, 422, 429),
      },
    },
    async (request, reply) => {
      const run = await exportReport(ctx, principalOf(request).merchantId, request.params.reportId, request.query.format, { count: request.query.count === true });
      if (run.rowCount !== null) reply.header('x-total-count', String(run.rowCount));
      return reply
        .type(run.contentType)
        .header('content-disposition', `attachment; filename="${run.filename}"`)
        .header('cache-control', 'no-store')
        .send(run.stream);
    },
  );
}
