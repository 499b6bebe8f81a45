import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestMerchant, type TestService } from './harness';

/**
 * Runs the shell blocks of every guide in docs/, as written, against a running service: a guide's
 * ```sh blocks run in order in one bash (so variables carry from block to block), with `set -eo
 * pipefail`. The only changes are the ones a reader makes: the address `http://127.0.0.1:8080` becomes
 * the test service's, and the credentials `npm start` prints (`ck_…`, `cs_…`, `whsec_…`, `adm_…`,
 * `CT-…`, `PO-…`) become a fresh merchant's. A block after `<!-- guide-test: skip (reason) -->` is not
 * run (starting the service, for one).
 *
 * curl is wrapped: it behaves as curl, and in addition fails the guide on a 5xx answer, on a 401 (a
 * guide that forgot its token) and on a route that does not exist (`00.00.0002`), the mistakes that
 * copy-pasted commands hit; other 4xx answers are examples of errors that guides show on purpose.
 *
 * The guides describe the API, not the database engine, so they run on PGlite only.
 */

const DOCS = new URL('../../../docs/', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const DOC_BASE = 'http://127.0.0.1:8080';

interface Guide {
  name: string;
  blocks: string[];
}

function guides(): Guide[] {
  return readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(DOCS, name), 'utf8');
      const blocks: string[] = [];
      for (const match of text.matchAll(/(<!-- guide-test: skip[^>]*-->\s*\n)?```sh\n([\s\S]*?)```/g)) if (!match[1]) blocks.push(match[2]!);
      return { name, blocks };
    })
    .filter((g) => g.blocks.length > 0);
}

const CURL_WRAPPER = `
curl() {
  local out status body
  out=$(command curl "$@" -w '\\n__HTTP_STATUS__%{http_code}') || return $?
  status=\${out##*__HTTP_STATUS__}
  body=\${out%$'\\n'__HTTP_STATUS__*}
  printf '%s\\n' "$body"
  if [[ $status == 5* || $status == 401 || $body == *'"00.00.0002"'* ]]; then echo "guide-test: curl $* answered $status: $body" >&2; return 22; fi
}
`;

function run(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('every guide runs as written', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(async () => {
    await service.close();
  });

  const all = guides();
  it('finds the guides', () => {
    expect(all.map((g) => g.name)).toContain('getting-started.md');
  });

  for (const guide of all) {
    it(`${guide.name}: ${guide.blocks.length} shell blocks`, async () => {
      // A merchant per guide, as a reader starts each guide afresh: a fault one guide injects, a secret
      // it rotates, stays with it.
      const merchant: TestMerchant = await service.merchant(`Guide Shop ${guide.name}`);
      const substitute = (block: string) =>
        block
          .replaceAll(DOC_BASE, service.baseUrl)
          .replaceAll('ck_…', merchant.api_key)
          .replaceAll('cs_…', merchant.api_secret)
          .replaceAll('whsec_…', merchant.webhook_secret)
          .replaceAll('adm_…', service.ctx.adminToken)
          .replaceAll('CT-…', merchant.contract_id)
          .replaceAll('PO-…', merchant.payout_contract_id);
      const script = ['set -eo pipefail', CURL_WRAPPER, ...guide.blocks.map(substitute)].join('\n');
      // What a reader holds after getting-started: its variables, and the repository's tools on PATH.
      const env = {
        ...process.env,
        PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`,
        BASE: service.baseUrl,
        API_KEY: merchant.api_key,
        API_SECRET: merchant.api_secret,
        WEBHOOK_SECRET: merchant.webhook_secret,
        CONTRACT: merchant.contract_id,
        PAYOUT_CONTRACT: merchant.payout_contract_id,
        TOKEN: merchant.token,
        ADMIN_TOKEN: service.ctx.adminToken,
        COLIBRI_ADMIN_TOKEN: service.ctx.adminToken,
        MERCHANT_ID: merchant.merchant_id,
        USER_ID: merchant.user.id,
        COLIBRI_CONFIG_DIR: join(service.config.dataDir, 'cli'),
      };
      const result = await run(script, env);
      // Files the guides write in the repository root, as a reader's shell would (*.log is ignored by git).
      for (const file of ['receiver.log', 'listen.log', 'report.json', 'report.csv']) rmSync(join(ROOT, file), { force: true });
      expect(result.code, `${guide.name} failed (${result.code}):\n${result.stderr.slice(-3000)}\n--- stdout ---\n${result.stdout.slice(-2000)}`).toBe(0);
    }, 300_000);
  }
});
