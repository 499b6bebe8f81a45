import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachEngine } from './harness';
import { operationsOf, requestsFor, seedOverHttp, sendAll, type FuzzRequest } from './openapi-fuzz';

/**
 * Every operation of /openapi.json, fuzzed (docs/security.md, "Hostile input"): no 5xx, and every
 * error in the standard body with catalogue codes. FUZZ_INPUTS sets how many requests per engine
 * (default 3000, in at most FUZZ_SECONDS, default 25); FUZZ_SEED replays a run. bench/fuzz.ts runs
 * the same generator for 100,000 inputs and more.
 */

const INPUTS = Number(process.env.FUZZ_INPUTS ?? 3000);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Requests for every operation, interleaved, so each operation gets its share however many are sent. */
export function interleaved(perOperation: FuzzRequest[][]): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const longest = Math.max(...perOperation.map((r) => r.length));
  for (let i = 0; i < longest; i += 1) for (const list of perOperation) if (list[i]) out.push(list[i] as FuzzRequest);
  return out;
}

describeEachEngine('OpenAPI fuzz', (service) => {
  it(`sends ${INPUTS} generated inputs across every operation: no 5xx, the standard body on every error (seed ${SEED})`, async () => {
    // Both documents: the merchant's and the operator's (admin, health, notifications, the hosted page).
    const merchantDoc = (await service().get('/openapi.json')).body;
    const operatorDoc = (await service().get('/openapi/operator.json')).body;
    const doc = {
      ...merchantDoc,
      paths: { ...merchantDoc.paths, ...operatorDoc.paths },
      components: { ...merchantDoc.components, schemas: { ...operatorDoc.components.schemas, ...merchantDoc.components.schemas }, securitySchemes: { ...merchantDoc.components.securitySchemes, ...operatorDoc.components.securitySchemes } },
    };
    // A stream (server-sent events) answers for as long as its token lives: it has no answer to judge.
    const streams = (op: { method: string; path: string }) => Boolean(doc.paths[op.path]?.[op.method.toLowerCase()]?.responses?.['200']?.content?.['text/event-stream']);
    const operations = operationsOf(doc).filter((op) => !streams(op));
    expect(operationsOf(doc).filter(streams).map((op) => op.path)).toEqual(['/webhooks/events/stream']);
    expect(operations.length).toBeGreaterThan(40);
    const admin = service().ctx.adminToken;
    const { pool, merchant, faults } = await seedOverHttp(service().baseUrl, admin);
    const perOperation = operations.map((op, i) =>
      fc.sample(
        // Processor faults are set on a merchant of their own, so that they fail no other call of the run.
        requestsFor(op, pool, { merchant: op.path === '/sandbox/processor/faults' ? faults.token : merchant.token, admin }, doc),
        { numRuns: Math.ceil(INPUTS / operations.length), seed: SEED + i },
      ),
    );
    const requests = interleaved(perOperation).slice(0, INPUTS);
    const deadline = Date.now() + SECONDS * 1000;
    // The first ten rounds (ten requests per operation) are always sent; the rest while time allows.
    const floor = operations.length * 10;
    const result = await sendAll(
      service().baseUrl,
      (function* () {
        for (const [i, r] of requests.entries()) {
          if (i >= floor && Date.now() > deadline) return;
          yield r;
        }
      })(),
      6,
    );
    const report = result.breaches.slice(0, 5).map((b) => `${b.breach}: ${b.request.method} ${b.request.path} ${JSON.stringify(b.request.headers)} ${b.request.body?.slice(0, 300) ?? ''}\n  → ${b.answer}`);
    expect(report, `seed ${SEED}`).toEqual([]);
    // Every operation had its share. How many are sent in the time allowed depends on the machine
    // (thousands on an idle one); at least 10 per operation are required whatever the load.
    console.info(`fuzz [${service().engine}]: ${result.sent} inputs, seed ${SEED}, statuses ${JSON.stringify(result.byStatus)}`);
    const starved = operations.map((op) => `${op.method} ${op.path}`).filter((name) => (result.byOperation[name] ?? 0) < 10);
    expect(starved).toEqual([]);
    // Not only refusals: a share of the inputs were accepted.
    const accepted = Object.entries(result.byStatus).filter(([s]) => Number(s) < 300).reduce((n, [, c]) => n + c, 0);
    expect(accepted).toBeGreaterThan(0);
  }, 180_000);
});
