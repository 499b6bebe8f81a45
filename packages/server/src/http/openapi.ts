/**
 * Finishes the OpenAPI document that @fastify/swagger builds from the route schemas, so that code
 * generators produce good clients from it: every operation gets a stable `operationId`, every schema
 * with a PascalCase `title` becomes a named component, every error answer points at the standard
 * error body, and every POST declares `Idempotency-Key`. Doing this once here, over the whole
 * document, keeps the route files free of OpenAPI plumbing: a route only gives its schema a `title`
 * to have it named.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is free-form JSON, walked key by key.
type Json = Record<string, any>;

interface OperationDoc {
  readonly id: string;
  /** A longer description, for operations whose summary says it all in one line. */
  readonly description?: string;
}

/**
 * Operation ids by `METHOD /path`. Generated clients name their methods after these, so they never
 * change once published. An operation missing here gets one derived from its method and path.
 */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /healthz': { id: 'getHealth', description: 'Answers 200 while the process runs; it does not touch the database.' },
  'GET /readyz': { id: 'getReadiness', description: 'Answers 200 when the database answers a query, 503 otherwise.' },
  'POST /auth': { id: 'createToken' },
  'GET /me': { id: 'getMe', description: 'The user and merchant that the access token stands for.' },
  'GET /merchant': { id: 'getMerchant' },
  'POST /admin/merchants': { id: 'createMerchant', description: 'Creates a merchant with its API key and secret, shown only in this answer. Takes the admin token.' },
  'GET /admin/stuck-operations': { id: 'listStuckOperations' },
  'GET /admin/boleto-files': { id: 'listBoletoFiles' },
  'GET /admin/boleto-files/{file_id}': { id: 'getBoletoFile' },
  'GET /admin/boleto-findings': { id: 'listBoletoFindings' },
  'POST /admin/boleto-findings/{finding_id}/resolve': { id: 'resolveBoletoFinding' },
  'PUT /admin/merchants/{merchantId}/boleto-term': { id: 'setBoletoTerm' },
  'GET /admin/merchants/{merchantId}/connectors': { id: 'listMerchantConnectors' },
  'PUT /admin/merchants/{merchantId}/connectors/{method}': { id: 'setMerchantConnector' },
  'DELETE /admin/merchants/{merchantId}/connectors/{method}': { id: 'deleteMerchantConnector' },
  'POST /connectors/adyen/notifications': { id: 'receiveAdyenNotifications' },
  'POST /connectors/dlocal/notifications': { id: 'receiveDlocalNotification' },
  'POST /pay/{checkout_id}/debit': { id: 'payCheckoutPageByDebit' },
  'POST /pay/{checkout_id}/debit/complete': { id: 'completeCheckoutPageDebit' },
  'POST /auth/secret/rotate': { id: 'rotateApiSecret' },
  'POST /admin/merchants/{merchantId}/disable': { id: 'disableMerchant' },
  'POST /admin/merchants/{merchantId}/enable': { id: 'enableMerchant' },
  'POST /admin/users/{userId}/disable': { id: 'disableUser' },
  'POST /admin/users/{userId}/enable': { id: 'enableUser' },
  'POST /admin/token-keys/rotate': { id: 'rotateTokenKeys' },
  'GET /checkout/card-encryption-key/{contractId}': { id: 'getCardEncryptionKey' },
  'PUT /admin/merchants/{merchantId}/fee-plan': { id: 'setFeePlan', description: 'Replaces the fee plan of one merchant. Takes the admin token.' },
  'POST /admin/reconciliation/imports': { id: 'importReconciliationReport' },
  'GET /admin/reconciliation/runs': { id: 'listReconciliationRuns' },
  'GET /admin/reconciliation/runs/{run_id}': { id: 'getReconciliationRun' },
  'POST /admin/reconciliation/runs/{run_id}/lines/{line_id}/resolve': { id: 'resolveReconciliationLine' },
  'POST /checkout/person': { id: 'createPerson' },
  'POST /checkout/card': { id: 'createCard' },
  'GET /payments': { id: 'listPayments' },
  'POST /checkout/sendPayment': { id: 'sendPayment' },
  'POST /checkout/{payment_token}/capture': { id: 'capturePayment', description: 'Captures all or part of a PRE_AUTHORIZED payment. Answers PROCESSING; the payment ends PAID.' },
  'POST /checkout/{payment_token}/cancel': { id: 'cancelPayment' },
  'GET /installments': { id: 'listInstallmentOptions', description: "The installment options of the merchant's plan for a price (and a card's BIN, for its scheme's rates): each installment, the last one, the total and the interest, as sendPayment charges them." },
  'GET /transactionDetails/{payment_token}': { id: 'getTransactionDetails', description: "Every group of the spec's Transaction details resource, with the payment's history (newest first) and refunds." },
  'POST /checkout/generate': { id: 'generateCheckout' },
  'GET /checkout/{checkout_id}': { id: 'getCheckout', description: 'The session with its status, methods and every payment attempt made through it.' },
  'GET /pay/{checkout_id}': { id: 'getCheckoutPage' },
  'GET /pay/{checkout_id}/status': { id: 'getCheckoutPageStatus', description: "The session's public status, which its page polls. Public: it carries no merchant data." },
  'POST /pay/{checkout_id}/attempts': { id: 'startCheckoutAttempt', description: 'Starts a PIX or boleto attempt from the page of a MULTI session. Public, used by the hosted page.' },
  'POST /pay/{checkout_id}/card': { id: 'payCheckoutWithCard' },
  'POST /refund': { id: 'createRefund' },
  'GET /refund/{refund_id}': { id: 'getRefund', description: 'One refund of one of the merchant\'s payments, with its status and amount.' },
  'GET /disputes': { id: 'listDisputes', description: "One page of the merchant's disputes, newest first, filtered by status and the day opened." },
  'GET /disputes/{dispute_id}': { id: 'getDispute', description: 'One dispute with its stage, deadline, money and evidence.' },
  'POST /disputes/{dispute_id}/evidence': { id: 'addDisputeEvidence' },
  'POST /disputes/{dispute_id}/submit': { id: 'submitDispute' },
  'POST /disputes/{dispute_id}/accept': { id: 'acceptDispute' },
  'GET /balance': { id: 'getBalance', description: "The merchant's available, pending and reserved money per currency." },
  'GET /balance/transactions': { id: 'listBalanceTransactions', description: "One page of the merchant's balance transactions, newest first." },
  'GET /settlements': { id: 'listSettlements', description: "One page of the merchant's settlements to its own bank account, newest first." },
  'GET /settlements/{settlement_id}': { id: 'getSettlement', description: 'One settlement with its amount, status, destination and arrival date.' },
  'GET /settlements/settings': { id: 'getSettlementSettings', description: "The merchant's settlement destinations and minimums per currency, and whether settlements are paused or held." },
  'PUT /settlements/settings': { id: 'updateSettlementSettings' },
  'POST /admin/merchants/{merchantId}/settlements/hold': { id: 'holdMerchantSettlements' },
  'POST /admin/merchants/{merchantId}/settlements/release': { id: 'releaseMerchantSettlements' },
  'POST /payoutTransaction': { id: 'createPayouts' },
  'GET /payoutTransaction/{tx_id}': { id: 'getPayout' },
  'POST /subscriptions': { id: 'createSubscription' },
  'GET /subscriptions': { id: 'listSubscriptions', description: "One page of the merchant's subscriptions, newest first." },
  'GET /subscriptions/{subscription_id}': { id: 'getSubscription', description: 'One subscription with its schedule and status.' },
  'POST /subscriptions/{subscription_id}/cancel': { id: 'cancelSubscription' },
  'GET /subscriptions/{subscription_id}/charges': { id: 'listSubscriptionCharges', description: "One page of a subscription's charges, newest first." },
  'POST /subscriptions/{subscription_id}/charge': { id: 'createSubscriptionCharge' },
  'POST /3ds/authentications': { id: 'startThreeDsAuthentication' },
  'GET /3ds/challenges/{id}': { id: 'getThreeDsChallenge', description: "The issuer's challenge page (HTML), framed by the browser library." },
  'POST /3ds/challenges/{id}': { id: 'answerThreeDsChallenge', description: 'The code the customer typed on the challenge page.' },
  'POST /checkout/3ds/payment': { id: 'payWithThreeDs' },
  'GET /reports/myreports/report': { id: 'listReports' },
  'POST /reports/myreports/report': { id: 'createReport' },
  'GET /reports/myreports/report/{reportId}': { id: 'getReport', description: 'One saved report definition.' },
  'PUT /reports/myreports/report/{reportId}': { id: 'updateReport' },
  'DELETE /reports/myreports/report/{reportId}': { id: 'deleteReport', description: 'Deletes one saved report definition.' },
  'GET /reports/myreports/report/{reportId}/export': { id: 'exportReport' },
  'GET /webhooks/events': { id: 'listEvents' },
  'GET /webhooks/events/stream': { id: 'streamEvents' },
  'GET /webhooks/events/{id}': { id: 'getEvent', description: 'One event with its payload and every callback attempt.' },
  'POST /webhooks/events/{id}/retry': { id: 'retryEvent' },
  'POST /webhooks/secret/rotate': { id: 'rotateWebhookSecret' },
  'POST /webhooks/endpoints': { id: 'createWebhookEndpoint' },
  'GET /webhooks/endpoints': { id: 'listWebhookEndpoints', description: "The merchant's webhook endpoints, oldest first, without their secrets." },
  'GET /webhooks/endpoints/{id}': { id: 'getWebhookEndpoint', description: 'One webhook endpoint of the merchant, without its secret.' },
  'PATCH /webhooks/endpoints/{id}': { id: 'updateWebhookEndpoint' },
  'DELETE /webhooks/endpoints/{id}': { id: 'deleteWebhookEndpoint' },
  'POST /webhooks/endpoints/{id}/secret/rotate': { id: 'rotateWebhookEndpointSecret' },
  'POST /sandbox/clock/advance': { id: 'advanceClock' },
  'GET /sandbox/clock': { id: 'getClock', description: "The current time of the caller's merchant clock and its offset from real time." },
  'POST /sandbox/payments/{payment_token}/pay': { id: 'sandboxPayPayment' },
  'POST /sandbox/processor/faults': { id: 'setProcessorFaults' },
  'GET /disputes/{dispute_id}/evidence/{file_id}': { id: 'getDisputeEvidenceFile' },
  'POST /sandbox/payments/{payment_token}/dispute': { id: 'sandboxDisputePayment' },
  'GET /sandbox/settlement-report': { id: 'getSandboxSettlementReport' },
  'POST /sandbox/disputes/{dispute_id}/close': { id: 'sandboxCloseDispute' },
};

/** Every tag with the description shown by documentation tools. */
const TAGS: Readonly<Record<string, string>> = {
  System: 'Health and readiness.',
  Authentication: 'Access tokens from an API key and secret.',
  Admin: 'Merchants, fee plans and settlement holds (admin token).',
  'Persons and cards': 'The vault: payers and their stored cards.',
  Payments: 'Card payments: sendPayment, capture, cancel, the list of payments, installments.',
  'Transaction details': "One payment with its history, fees, FX and refunds: the spec's Transaction details.",
  Checkout: 'Hosted checkout sessions.',
  'Checkout page': 'The public hosted checkout page and its calls.',
  Refunds: 'Refunds of paid payments.',
  Balance: "The merchant's balance, its transactions and settlements.",
  Disputes: 'Chargebacks, inquiries and MED devoluções: evidence, submission, acceptance.',
  Payouts: 'Payouts to Colombia, Peru and Chile.',
  Subscriptions: 'Recurring charges on a stored card.',
  '3DS': '3-D Secure authentication.',
  Reports: 'Saved reports and their export.',
  Callbacks: 'Events, their callbacks, the webhook endpoints, the event stream and the signing secrets.',
  Sandbox: 'Sandbox controls (sandbox mode only).',
  Connectors: "Processors' notifications to Colibri, signed by the processor.",
};

const ERROR_BODY = '#/components/schemas/ErrorBody';
const REPORTS_AUTH_ERROR = '#/components/schemas/ReportsAuthError';
const IDEMPOTENCY_KEY = '#/components/parameters/IdempotencyKey';

const ErrorBodySchema: Json = {
  title: 'ErrorBody',
  description: "The spec's standard error body (docs/errors.md lists every code).",
  type: 'object',
  required: ['timestamp', 'status', 'error', 'path'],
  properties: {
    timestamp: { type: 'string', examples: ['2026-11-22T10:15:30.123+0000'] },
    status: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    path: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'description'],
        properties: { code: { type: 'string', pattern: '^\\d{2}\\.\\d{2}\\.\\d{4}$' }, description: { type: 'string' } },
      },
    },
    refresh_token: { type: 'string' },
  },
};

const ReportsAuthErrorSchema: Json = {
  title: 'ReportsAuthError',
  description: 'The report endpoints answer 401 with this body.',
  type: 'object',
  required: ['message', 'code', 'details'],
  properties: { message: { type: 'string' }, code: { type: 'integer' }, details: { type: 'object' } },
};

/** 2xx answers that are not JSON, by operation: documented here because their routes stream or render. */
const NON_JSON_ANSWERS: Readonly<Record<string, Json>> = {
  'GET /pay/{checkout_id}': { description: 'The hosted checkout page', content: { 'text/html': { schema: { type: 'string' } } } },
  'GET /3ds/challenges/{id}': { description: 'The challenge page', content: { 'text/html': { schema: { type: 'string' } } } },
  'GET /reports/myreports/report/{reportId}/export': {
    description: "The report's rows: CSV with a header line, or a JSON array of objects keyed by column name",
    headers: { 'X-Total-Count': { description: 'the number of rows that follow; sent when the request asked for count=true', schema: { type: 'integer', minimum: 0 } } },
    content: { 'text/csv': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'array', items: { type: 'object' } } } },
  },
  'GET /disputes/{dispute_id}/evidence/{file_id}': {
    description: 'The evidence file, as uploaded',
    headers: { 'Content-Disposition': { description: 'attachment, with the name the file was uploaded under', schema: { type: 'string' } } },
    content: Object.fromEntries(['application/pdf', 'image/jpeg', 'image/png'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  },
  'GET /sandbox/settlement-report': {
    description: "The simulator's settlement report of the day, in Adyen's Settlement details format (docs/reconciliation.md)",
    content: { 'text/csv': { schema: { type: 'string' } } },
  },
  'GET /webhooks/events/stream': {
    description: 'Server-sent events: each `data:` line is one event object as in GET /webhooks/events',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
};

/** Request bodies that are not JSON, by operation: documented here because their routes read the raw stream. */
const NON_JSON_BODIES: Readonly<Record<string, Json>> = {
  'POST /admin/reconciliation/imports': {
    required: false,
    description: "The processor's report (processor=adyen or sandbox): CSV text, read as it arrives. PIX takes no body.",
    content: { 'text/csv': { schema: { type: 'string' } } },
  },
};

/** Parts of the document that no route describes, given by the composition root. */
export interface OpenApiExtras {
  /**
   * The OpenAPI 3.1 `webhooks` section: the requests the service makes to the merchant (its callbacks),
   * by name, each an operation with its own operationId. Titled schemas in it become components too.
   */
  readonly webhooks?: Json;
}

/**
 * Adds what code generators need to the document @fastify/swagger built. Pure: it returns a new
 * document and throws when two different schemas claim one component name.
 */
export function finishOpenApi(input: Json, extras: OpenApiExtras = {}): Json {
  const doc: Json = structuredClone(input);
  if (extras.webhooks) doc.webhooks = structuredClone(extras.webhooks);
  doc.info = { ...doc.info, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' }, contact: { name: 'Colibri' } };
  const components: Json = (doc.components ??= {});
  const schemas: Json = (components.schemas ??= {});
  components.parameters = {
    ...components.parameters,
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes a retry safe: the same key with the same body replays the first answer; with another body it answers 422 (docs/conventions.md).',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    },
  };
  schemas.ErrorBody = ErrorBodySchema;
  schemas.ReportsAuthError = ReportsAuthErrorSchema;

  const usedTags = new Set<string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const known = OPERATIONS[key];
      op.operationId = known?.id ?? deriveOperationId(method, path);
      op.description ??= known?.description ?? op.summary;
      for (const tag of op.tags ?? []) usedTags.add(tag);
      // A query parameter with a default may be left out, whatever the schema's required list says.
      for (const parameter of op.parameters ?? []) if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false;
      if (method === 'post') {
        op.parameters = (op.parameters ?? []).filter((p: Json) => String(p.name).toLowerCase() !== 'idempotency-key');
        op.parameters.push({ $ref: IDEMPOTENCY_KEY });
      }
      if (NON_JSON_BODIES[key]) op.requestBody = NON_JSON_BODIES[key];
      finishResponses(key, path, op);
    }
  }
  for (const item of Object.values<Json>(doc.webhooks ?? {})) for (const op of Object.values<Json>(item)) for (const tag of op.tags ?? []) usedTags.add(tag);
  doc.tags = [...usedTags].sort().map((name) => ({ name, description: TAGS[name] ?? name }));
  hoistNamedSchemas(doc, schemas);
  return doc;
}

function finishResponses(key: string, path: string, op: Json): void {
  const responses: Json = (op.responses ??= {});
  const nonJson = NON_JSON_ANSWERS[key];
  if (nonJson) {
    for (const status of Object.keys(responses)) if (status.startsWith('2') && status !== '204') delete responses[status];
    responses['200'] = nonJson;
  }
  for (const [status, response] of Object.entries<Json>(responses)) {
    if (!/^[45]/.test(status) || !isUntyped(response)) continue;
    const ref = status === '401' && path.startsWith('/reports/') ? REPORTS_AUTH_ERROR : ERROR_BODY;
    responses[status] = { description: describeStatus(status), content: { 'application/json': { schema: { $ref: ref } } } };
  }
  // Any answer can be an error in the standard body (an unknown route, a body too large): say so
  // where the route lists no client error of its own.
  if (!Object.keys(responses).some((s) => s.startsWith('4'))) {
    responses['4XX'] = { description: 'A client error, in the standard error body', content: { 'application/json': { schema: { $ref: ERROR_BODY } } } };
  }
  for (const [status, response] of Object.entries<Json>(responses)) {
    if (response.description === 'Default Response') response.description = describeStatus(status);
  }
}

/** An answer with no content, or one whose schemas only describe it (errorResponses in schema-kit). */
function isUntyped(response: Json): boolean {
  return Object.values<Json>(response.content ?? {}).every(({ schema }) => !schema || !['type', '$ref', 'properties', 'anyOf', 'oneOf', 'allOf'].some((k) => k in schema));
}

const STATUS_TEXT: Readonly<Record<string, string>> = {
  '200': 'OK',
  '201': 'Created',
  '204': 'No content',
  '400': 'Bad request: one error per failing field',
  '401': 'Missing, invalid or expired token',
  '403': 'Forbidden',
  '404': 'Not found (or another merchant\'s)',
  '409': 'Conflict with the current state',
  '413': 'Request body too large',
  '415': 'Unsupported content type (of the body, or of an uploaded file)',
  '422': 'The resource is not in a state that allows this',
  '429': 'Too many requests; see Retry-After',
  '502': 'The processor failed',
  '503': 'Not ready',
};

function describeStatus(status: string): string {
  return STATUS_TEXT[status] ?? `HTTP ${status}`;
}

/** `post /subscriptions/{subscription_id}/cancel` → `postSubscriptionsSubscriptionIdCancel`. */
function deriveOperationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * Moves every schema whose `title` is a PascalCase name into components.schemas and replaces it with
 * a `$ref`, innermost first so that a named schema inside another is shared too.
 */
function hoistNamedSchemas(doc: Json, schemas: Json): void {
  const claimed = new Map<string, string>();
  for (const [name, schema] of Object.entries<Json>(schemas)) claimed.set(name, JSON.stringify(schema));
  const visit = (node: unknown, insideComponent: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, insideComponent));
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = visit(v, insideComponent);
    const title = out.title;
    const isSchema = typeof title === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(title) && ('type' in out || 'properties' in out || 'anyOf' in out);
    if (!isSchema || title === insideComponent) return out;
    const text = JSON.stringify(out);
    const earlier = claimed.get(title);
    if (earlier !== undefined && earlier !== text) throw new Error(`OpenAPI: two different schemas are titled ${title}`);
    claimed.set(title, text);
    schemas[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  };
  doc.paths = visit(doc.paths, undefined);
  if (doc.webhooks) doc.webhooks = visit(doc.webhooks, undefined);
  for (const [name, schema] of Object.entries<Json>(schemas)) {
    const inner = visit(schema, name) as Json;
    schemas[name] = inner;
  }
}
