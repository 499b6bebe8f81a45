import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { validatorCompiler } from '../http/validation';
import { disputeView, loadDispute } from './dispute-record';
import { EVIDENCE_FILE_MAX_BYTES, EVIDENCE_TEXT_FIELDS, EVIDENCE_TEXT_MAX } from './evidence-fields';
import { addEvidenceFile, downloadHeaders, EVIDENCE_CONTENT_TYPES, openEvidenceFile } from './evidence-files';
import { listDisputes } from './list-disputes';
import { acceptDispute, addEvidenceText, submitDispute } from './respond';
import { DisputeListQuery, DisputePage, DisputeParams, DisputeResponse, EvidenceFileForm, EvidenceFileParams, EvidenceTextBody } from './schemas';

const tags = ['Disputes'];

/**
 * The multipart parser's limits for an evidence upload: one file, a little over 5 MB so that the
 * upload's own count answers DISPUTE_FILE_TOO_LARGE first, and a few small fields. Fastify's body limit
 * does not apply to multipart bodies (the parser streams them); these bound them instead. The
 * dashboard's upload (dashboard/dispute-routes.ts) takes the same.
 */
export const EVIDENCE_MULTIPART = { limits: { fileSize: EVIDENCE_FILE_MAX_BYTES + 64 * 1024, files: 1, fields: 4, fieldSize: 1024, fieldNameSize: 100, parts: 6, headerPairs: 20 } };

/** A JSON evidence body with every text field at its longest, in UTF-8 (at most 3 bytes a UTF-16 unit), and room for the JSON around them. */
const EVIDENCE_JSON_BODY_LIMIT = EVIDENCE_TEXT_FIELDS.length * EVIDENCE_TEXT_MAX * 3 + 4096;

/** Disputes (CONTRACTS.md, Disputes; docs/disputes.md). Thin: schema, one call, presentation. */
export async function registerDisputeRoutes(app: App, ctx: AppContext): Promise<void> {
  app.get(
    '/disputes',
    {
      schema: {
        summary: "List the merchant's disputes",
        description: 'Newest first, as a page object like the saved reports list; filters by status and by the day opened.',
        tags,
        querystring: DisputeListQuery,
        response: { 200: DisputePage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await listDisputes(ctx.db, principalOf(request).merchantId, request.query);
      return { ...page, refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.get(
    '/disputes/:dispute_id',
    { schema: { summary: 'Read a dispute', tags, params: DisputeParams, response: { 200: DisputeResponse, ...errorResponses(401, 404) } } },
    async (request) => {
      const { dispute, files } = await loadDispute(ctx.db, principalOf(request).merchantId, request.params.dispute_id);
      return { ...disputeView(dispute, files), refresh_token: await refreshToken(ctx, request) };
    },
  );

  // The multipart parser is registered in this route's own scope, so no other endpoint takes form bodies.
  await app.register(async (scope) => {
    await scope.register(multipart, EVIDENCE_MULTIPART);
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/disputes/:dispute_id/evidence',
      {
        bodyLimit: Math.min(ctx.config.bodyLimitBytes, EVIDENCE_JSON_BODY_LIMIT),
        // A multipart body is checked part by part as it streams (evidence-files.ts), not by a schema.
        validatorCompiler: (definition) => (definition.httpPart === 'body' && definition.contentType === 'multipart/form-data' ? () => true : validatorCompiler(definition)),
        schema: {
          summary: 'Add evidence to a dispute',
          description:
            'JSON text fields (a field sent replaces the one kept; an empty string removes it), or multipart/form-data with one file (PDF, JPEG or PNG by its content; at most 5 MB, and 10 MB for all of the dispute\'s files) and an optional kind. Only while the dispute is NEEDS_RESPONSE. A refused upload stores nothing.',
          tags,
          params: DisputeParams,
          consumes: ['application/json', 'multipart/form-data'],
          body: { content: { 'application/json': { schema: EvidenceTextBody }, 'multipart/form-data': { schema: EvidenceFileForm } } },
          response: { 200: DisputeResponse, ...errorResponses(400, 401, 404, 409, 413, 415) },
        },
      },
      async (request, reply) => {
        const merchantId = principalOf(request).merchantId;
        let view;
        if (request.isMultipart()) {
          try {
            view = await addEvidenceFile(ctx, merchantId, request.params.dispute_id, { parts: request.parts(), cancel: () => request.raw.destroy() });
          } catch (error) {
            // The client may still be sending the file: close the connection after the answer.
            reply.header('connection', 'close');
            throw error;
          }
        } else {
          view = await addEvidenceText(ctx, merchantId, request.params.dispute_id, request.body as Static<typeof EvidenceTextBody>);
        }
        return { ...view, refresh_token: await refreshToken(ctx, request) };
      },
    );
  });

  app.get(
    '/disputes/:dispute_id/evidence/:file_id',
    {
      schema: {
        summary: 'Download an evidence file',
        description: 'The file as uploaded, with the content type its content showed and Content-Disposition: attachment.',
        tags,
        params: EvidenceFileParams,
        produces: [...EVIDENCE_CONTENT_TYPES],
        response: errorResponses(401, 404),
      },
    },
    async (request, reply) => {
      const { file, stream } = await openEvidenceFile(ctx.db, principalOf(request).merchantId, request.params.dispute_id, request.params.file_id);
      return reply.headers(downloadHeaders(file)).send(stream);
    },
  );

  app.post(
    '/disputes/:dispute_id/submit',
    {
      schema: {
        summary: "Submit the dispute's evidence",
        description: 'Sends the defence to the processor; the dispute is UNDER_REVIEW until it rules. Final: no evidence can be added afterwards.',
        tags,
        params: DisputeParams,
        response: { 200: DisputeResponse, ...errorResponses(400, 401, 404, 409, 502) },
      },
    },
    async (request) => {
      const view = await submitDispute(ctx, principalOf(request).merchantId, request.params.dispute_id);
      return { ...view, refresh_token: await refreshToken(ctx, request) };
    },
  );

  app.post(
    '/disputes/:dispute_id/accept',
    {
      schema: {
        summary: 'Accept a dispute',
        description: 'Concedes it: ACCEPTED, and the held money stays with the processor (a loss without a fight).',
        tags,
        params: DisputeParams,
        response: { 200: DisputeResponse, ...errorResponses(401, 404, 409, 502) },
      },
    },
    async (request) => {
      const view = await acceptDispute(ctx, principalOf(request).merchantId, request.params.dispute_id);
      return { ...view, refresh_token: await refreshToken(ctx, request) };
    },
  );
}
