import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareShown, parseGuide, type Block, type Step } from './guide-steps';
import type { Engine } from '../src/db/database';
import { ENGINES, startTestService, type TestMerchant, type TestService } from './harness';

/**
 * Runs every step of every guide in docs/, as written, against a running service, on each engine
 * (docs/conventions.md, "Examples in these guides", says how a guide is read). A guide's ```sh blocks are cut
 * into steps (guide-steps.ts); each step runs in its own bash with `set -eo pipefail`, after the variables,
 * functions and folder the steps before it left, so a guide reads as one shell session and a failure names
 * its step. The only changes are the ones a reader makes: the address `http://127.0.0.1:8080` becomes the
 * test service's, and the credentials `npm start` prints (`ck_…`, `cs_…`, `whsec_…`, `adm_…`, `CT-…`,
 * `PO-…`) become a fresh merchant's.
 *
 * curl is wrapped: it behaves as curl, keeps each answer for the test, and fails the step on a 4xx or 5xx that
 * the step does not announce with `# expected error: <status> [<code>]`. After a step, the test
 * checks that each announced error came, and compares the output the guide shows with what the step printed.
 * A block marked `<!-- guide-test: skip (reason) -->` is not run; the first test lists each such block with its reason.
 * A block marked `<!-- guide-test: one engine (reason) -->` does not call the service and runs on the first engine only.
 */

const DOCS = new URL('../../../docs/', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const DOC_BASE = 'http://127.0.0.1:8080';
const STEP_TIMEOUT_MS = 120_000;
/** GUIDES=checkout.md,refunds.md runs only those guides (while writing one). */
const ONLY = process.env.GUIDES?.split(',');

interface Guide {
  name: string;
  blocks: Block[];
}

function guides(): Guide[] {
  return readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((name) => ({ name, blocks: parseGuide(readFileSync(join(DOCS, name), 'utf8')) }))
    .filter((g) => g.blocks.length > 0 && (!ONLY || ONLY.includes(g.name)));
}

/** Sourced before each step: the curl wrapper, and the state the steps before left (see the file). */
const PRELUDE = readFileSync(new URL('./guide-prelude.sh', import.meta.url), 'utf8');

interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  answers: { status: number; call: string; body: string }[];
}

/** Runs one step in a bash of its own process group (killed with the guide: a receiver left running, say). */
function runStep(script: string, env: NodeJS.ProcessEnv, dir: string, groups: number[]): Promise<StepRun> {
  const answers = mkdtempSync(join(dir, 'answers-'));
  const out = join(dir, 'stdout');
  const err = join(dir, 'stderr');
  const stdout = openSync(out, 'w');
  const stderr = openSync(err, 'w');
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${PRELUDE}\n${script}`], {
      cwd: ROOT,
      env: { ...env, GUIDE_TEST_ANSWERS: answers },
      stdio: ['ignore', stdout, stderr],
      detached: true,
    });
    if (child.pid) groups.push(child.pid);
    const timer = setTimeout(() => kill(child.pid), STEP_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      closeSync(stdout);
      closeSync(stderr);
      const files = readdirSync(answers).sort();
      resolve({
        code,
        stdout: readFileSync(out, 'utf8'),
        stderr: readFileSync(err, 'utf8'),
        answers: files.map((file) => {
          const [status, call, ...body] = readFileSync(join(answers, file), 'utf8').split('\n');
          return { status: Number(status), call: call ?? '', body: body.join('\n') };
        }),
      });
    });
  });
}

function kill(group: number | undefined): void {
  try {
    if (group) process.kill(-group, 'SIGTERM');
  } catch {
    // already gone
  }
}

/** What went wrong in a step that ran, or undefined: an announced error that did not come, or output unlike the guide's. */
function checkStep(step: Step, run: StepRun): string | undefined {
  for (const expected of step.expectedErrors) {
    const came = run.answers.some((a) => a.status === expected.status && (!expected.code || codesOf(a.body).includes(expected.code)));
    if (!came) return `the step announces "expected error: ${expected.status}${expected.code ? ` ${expected.code}` : ''}", and no answer was that`;
  }
  for (const answer of run.answers.filter((a) => a.status >= 400)) {
    const announced = step.expectedErrors.some((e) => e.status === answer.status && (!e.code || codesOf(answer.body).includes(e.code)));
    if (!announced) return `curl ${answer.call} answered ${answer.status} ${answer.body.slice(0, 300)}, which the step does not announce`;
  }
  if (step.shown === '') return undefined;
  const difference = compareShown(step.shown, run.stdout, run.answers.at(-1)?.body);
  return difference && `the output differs from the guide's: ${difference}`;
}

function codesOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { errors?: { code?: string }[] };
    return (parsed.errors ?? []).map((e) => e.code ?? '');
  } catch {
    return [];
  }
}

const all = guides();

it('finds the guides, and lists the blocks it does not run with their reasons', () => {
  if (!ONLY) expect(all.map((g) => g.name)).toContain('getting-started.md');
  const blocks = all.flatMap((g) => g.blocks.filter((b) => b.skip !== undefined).map((b) => ({ at: `${g.name}:${b.line}`, why: b.skip! })));
  for (const { why } of blocks) expect(why.trim().length).toBeGreaterThan(5);
  const skipped = blocks.map(({ at, why }) => `  ${at}: ${why}`);
  // Printed whatever the reporter, so that a run always says what it left out and why.
  console.info(`guide-test: ${skipped.length} blocks not run here:\n${skipped.join('\n')}`);
});

/**
 * Whether `block` runs against `engine`'s service: not if it is listed as not run here, and a block that does
 * not call the service runs on the first engine only (another would run the same thing again).
 */
function runsOn(block: Block, engine: Engine): boolean {
  return block.skip === undefined && (block.oneEngine === undefined || engine === ENGINES[0]);
}

for (const engine of ENGINES) {
  const runnable = all.filter((g) => g.blocks.some((b) => runsOn(b, engine)));
  if (runnable.length === 0) continue;
  describe(`every step of every guide runs as written [${engine}]`, () => {
    let service: TestService;
    beforeAll(async () => {
      // Configured as npm start configures it: no callback hosts listed (sandbox calls loopback, with a warning).
      service = await startTestService(engine, { env: { COLIBRI_CALLBACK_ALLOW_HOSTS: '' } });
    });
    afterAll(async () => {
      await service.close();
    });

    for (const guide of runnable) {
      describe(guide.name, () => {
        // A merchant per guide, as a reader starts each guide afresh: a fault one guide injects, a secret it
        // rotates, stays with it. It has the name npm start gives the demo merchant.
        let merchant: TestMerchant;
        let dir: string;
        let failed: string | undefined;
        const groups: number[] = [];
        beforeAll(async () => {
          merchant = await service.merchant('Demo Merchant');
          dir = mkdtempSync(join(tmpdir(), 'colibri-guide-'));
        });
        afterAll(() => {
          for (const group of groups) kill(group);
          rmSync(dir, { recursive: true, force: true });
          // Files the guides write in the repository root, as a reader's shell would (*.log is ignored by git).
          for (const file of ['receiver.log', 'listen.log', 'report.json', 'report.csv']) rmSync(join(ROOT, file), { force: true });
        });

        for (const block of guide.blocks) {
          if (!runsOn(block, engine)) continue;
          for (const [index, step] of block.steps.entries()) {
            const title = `${guide.name}:${step.line} (block at line ${block.line}, step ${index + 1}/${block.steps.length})`;
            it(title, async (context) => {
              if (failed) context.skip(`not run: ${failed} failed`);
              const substitute = (text: string) =>
                text
                  .replaceAll(DOC_BASE, service.baseUrl)
                  .replaceAll('ck_…', merchant.api_key)
                  .replaceAll('cs_…', merchant.api_secret)
                  .replaceAll('whsec_…', merchant.webhook_secret)
                  .replaceAll('adm_…', service.ctx.adminToken)
                  .replaceAll('CT-…', merchant.contract_id)
                  .replaceAll('PO-…', merchant.payout_contract_id);
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
                COLIBRI_CONFIG_DIR: join(service.config.dataDir, `cli-${guide.name}`),
                GUIDE_TEST_STATE: join(dir, 'state'),
                GUIDE_TEST_EXPECT: step.expectedErrors.map((e) => e.status).join(' '),
              };
              const run = await runStep(substitute(step.script), env, dir, groups);
              const problem = run.code !== 0 ? `exited with ${run.code}` : checkStep({ ...step, shown: step.shown.replaceAll(DOC_BASE, service.baseUrl) }, run);
              if (problem) failed = title;
              else writeFileSync(join(dir, 'state'), readFileSync(join(dir, 'state.next')));
              expect(problem, `${title}: ${problem}\n--- stderr ---\n${run.stderr.slice(-3000)}\n--- stdout ---\n${run.stdout.slice(-2000)}`).toBeUndefined();
            }, STEP_TIMEOUT_MS + 10_000);
          }
        }
      });
    }
  });
}
