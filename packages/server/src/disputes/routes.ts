import { refreshToken } from '../auth/refresh-token';
import { principalOf, type App, type AppContext } from '../context';
import { errorResponses } from '../http/schema-kit';
import { disputeView, loadDispute } from './dispute-record';
import { listDisputes } from './list-disputes';
import { acceptDispute, addEvidenceText, submitDispute } from './respond';
import { DisputeListQuery, DisputePage, DisputeParams, DisputeResponse, EvidenceTextBody } from './schemas';

const tags = ['Disputes'];

/** Disputes (CONTRACTS.md, Disputes; docs/disputes.md). Thin: schema, one call, presentation. */
export function registerDisputeRoutes(app: App, ctx: AppContext): void {
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

  app.post(
    '/disputes/:dispute_id/evidence',
    {
      schema: {
        summary: 'Add evidence to a dispute',
        description: 'JSON text fields (a field sent replaces the one kept; an empty string removes it), or multipart/form-data with a file. Only while the dispute is NEEDS_RESPONSE.',
        tags,
        params: DisputeParams,
        body: EvidenceTextBody,
        response: { 200: DisputeResponse, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const view = await addEvidenceText(ctx, principalOf(request).merchantId, request.params.dispute_id, request.body);
      return { ...view, refresh_token: await refreshToken(ctx, request) };
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
