import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, sourceFiles, twoWayPairs, unitArrows, unitOf } from './import-graph';

/**
 * The shape of packages/server/src, measured (docs/architecture.md, "Layers"). Units (a top folder, or
 * a top-level file) sit in layers; a unit may import its own layer and the layers below it, and no two
 * units import each other. An arrow from a lower layer to a higher one runs back up the layers, and so
 * does one from anything below the composition roots into them. Reads files only: no database, well
 * under a second.
 */
const SRC = new URL('../src/', import.meta.url).pathname;
const TEST = new URL('./', import.meta.url).pathname;

const LAYERS: readonly (readonly string[])[] = [
  // 0. Pure foundations: money, batching, time formats, the error catalogue; Brazilian, Andean and Mexican formats.
  ['lib', 'rails'],
  // 1. Infrastructure: the database, HTTP plumbing, clocks, configuration, logs, metrics.
  ['db', 'http', 'clock', 'config', 'logger', 'metrics', 'version'],
  // 2. Shared mechanisms every domain writes through: ledger, outbox, job queue, fees and FX, pricing, the processor contract and its connectors.
  ['ledger', 'events', 'jobs', 'fees', 'pricing', 'processor', 'connectors'],
  // 3. Domains, in four sub-layers, each calling down into the ones before it:
  // 3a. the context handed to every verb, tokens and logins, the vault of persons and cards;
  ['context', 'auth', 'vault'],
  // 3b. payments, the bottom of the money-moving domains;
  ['payments'],
  // 3c. the domains that call down into payments (or sit beside them): refunds, 3DS, checkout, subscriptions, payouts, disputes, balances and settlements;
  ['refunds', 'three-ds', 'checkout', 'subscriptions', 'payouts', 'disputes', 'balance', 'settlements'],
  // 3d. what reads or drives the domains: transaction details, reports, callbacks, the dashboard, the checkout page, merchants and their setup, admin, reconciliation with the processors, sandbox, system.
  ['payment-details', 'reports', 'webhooks', 'dashboard', 'checkout-page', 'merchants', 'admin', 'reconciliation', 'sandbox', 'system'],
  // 4. Composition roots: the processes and what they assemble (HTTP app, background work and its job registry, command line).
  ['app', 'main', 'worker', 'cli', 'server-commands', 'runtime', 'lifecycle', 'background', 'job-registry'],
];

/**
 * At most this many arrows may run back up the layers (issue 17 asks for 12). The arrows left are
 * exactly BACK_ARROWS, listed in docs/architecture.md with what would remove them.
 */
const MAX_BACK_ARROWS = 12;

/** The arrows running back up the layers today: one removed is taken off this list (and off docs/architecture.md). */
const BACK_ARROWS: readonly string[] = [
  // The connector routes and Adyen notifications take the AppContext.
  'connectors -> context',
  // The error handler, idempotency and other hooks take the AppContext.
  'http -> context',
  // lib/shared-limiter.ts keeps its counters in the database.
  'lib -> db',
];

/**
 * Pairs of units that still import each other, to be removed: a pair removed is taken off this list,
 * and no pair may join it. The two context pairs wait for auth's and the connectors' routes to take
 * only what they use instead of the AppContext, which itself holds auth's tokens and access list and
 * the connector router.
 */
const TWO_WAY_PAIRS: readonly string[] = [
  'auth <-> context',
  'connectors <-> context',
];

/** No source file is longer than this (tests are not counted). */
const MAX_LINES = 450;

/** Files allowed over MAX_LINES for now, with their length today: a file here may shrink but not grow. */
const LONG_FILES: Readonly<Record<string, number>> = {};

const graph = importGraph(SRC);

function layerOf(unit: string): number {
  const layer = LAYERS.findIndex((units) => units.includes(unit));
  if (layer < 0) throw new Error(`${unit} is in no layer: place it in LAYERS (test/architecture.test.ts) and in docs/architecture.md`);
  return layer;
}

describe('architecture of packages/server/src', () => {
  it('reads a graph of the whole tree', () => {
    // A parser that saw nothing would pass every test below.
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('main.ts')).toContain('app.ts');
    // Type-only imports are read too.
    expect(graph.get('payments/create-payment.ts')).toContain('fees/fx.ts');
  });

  it('places every unit in exactly one layer', () => {
    const placed = LAYERS.flat();
    expect(placed.length).toBe(new Set(placed).size);
    const units = [...new Set([...graph.keys()].map(unitOf))].sort();
    expect(units.filter((unit) => !placed.includes(unit))).toEqual([]);
    expect(placed.filter((unit) => !units.includes(unit))).toEqual([]);
  });

  it('has no import circles', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('no two folders import each other (but the pairs of TWO_WAY_PAIRS, being removed)', () => {
    // Type-only imports count: auth/auth-hook.ts imports only types of context.ts.
    expect(graph.get('auth/auth-hook.ts')).toContain('context.ts');
    const arrows = unitArrows(graph);
    const pairs = twoWayPairs(graph);
    const listed = pairs.map((pair) => {
      const [a, b] = pair.split(' <-> ');
      const imports = arrows.filter((arrow) => (arrow.from === a && arrow.to === b) || (arrow.from === b && arrow.to === a)).flatMap((arrow) => arrow.imports);
      return `${pair} (${imports.join(', ')})`;
    });
    expect(pairs, `units that import each other:\n${listed.join('\n')}`).toEqual(TWO_WAY_PAIRS);
  });

  it(`has at most ${MAX_BACK_ARROWS} arrows running back up the layers, those listed`, () => {
    const back = unitArrows(graph).filter((arrow) => layerOf(arrow.to) > layerOf(arrow.from));
    const listed = back.map((arrow) => `${arrow.from} -> ${arrow.to} (${arrow.imports.join(', ')})`);
    expect(back.length, `arrows back up the layers:\n${listed.join('\n')}`).toBeLessThanOrEqual(MAX_BACK_ARROWS);
    expect(back.map((arrow) => `${arrow.from} -> ${arrow.to}`), `arrows back up the layers:\n${listed.join('\n')}`).toEqual(BACK_ARROWS);
  });

  it(`keeps every source file under ${MAX_LINES} lines`, () => {
    const lengths = sourceFiles(SRC).map((file) => ({ file, lines: readFileSync(join(SRC, file), 'utf8').split('\n').length - 1 }));
    const tooLong = lengths.filter(({ file, lines }) => lines > (LONG_FILES[file] ?? MAX_LINES));
    expect(tooLong).toEqual([]);
    // An exception that no longer needs to be one is taken off the list.
    expect(Object.keys(LONG_FILES).filter((file) => (lengths.find((l) => l.file === file)?.lines ?? 0) <= MAX_LINES)).toEqual([]);
  });

  it('names each job kind once: the constant its domain exports, used everywhere else', () => {
    // This file names the kinds on purpose, to notice a new one.
    const self = new URL(import.meta.url).pathname;
    const files = [...sourceFiles(SRC, true).map((file) => join(SRC, file)), ...sourceFiles(TEST, true).map((file) => join(TEST, file))].filter((file) => file !== self);
    const texts = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
    const kinds = [...texts].flatMap(([file, text]) => [...text.matchAll(/export const \w+_JOB = '([^']+)';/g)].map((match) => ({ file, kind: match[1] as string })));
    expect(kinds.map((k) => k.kind).sort()).toEqual(['dispute.notice', 'payment.changed', 'payment.process', 'payout.process', 'refund.settle', 'settlement.pay']);
    // A migration keeps the value it wrote when it was written, whatever the constant becomes.
    const migration = (file: string) => file.includes('/db/migrations/');
    for (const { file, kind } of kinds) {
      const elsewhere = [...texts].filter(([other, text]) => other !== file && !migration(other) && new RegExp(`['\`"]${kind.replace('.', '\\.')}[:'\`"]`).test(text)).map(([other]) => other);
      expect(elsewhere, `${kind} is written out instead of its constant`).toEqual([]);
    }
  });

  it('writes the jobs table only in jobs/: other code enqueues, cancels and reschedules through jobs/queue.ts', () => {
    const writes = /(updateTable|deleteFrom|insertInto)\(\s*'jobs'\s*\)|\b(insert\s+into|update|delete\s+from)\s+jobs\b/i;
    const writers = sourceFiles(SRC)
      .filter((file) => !file.startsWith('jobs/') && !file.startsWith('db/migrations/'))
      .filter((file) => writes.test(readFileSync(join(SRC, file), 'utf8')));
    expect(writers).toEqual([]);
  });
});
