import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph, sourceFiles, unitArrows, unitOf } from './import-graph';

/**
 * The shape of packages/server/src, measured (docs/architecture.md, "Layers"). Units (a top folder, or
 * a top-level file) sit in layers; a unit may import its own layer and the layers below it. An arrow
 * from a lower layer to a higher one runs back up the layers, and so does one from anything below
 * the composition roots into them. Reads files only: no database, well under a second.
 */
const SRC = new URL('../src/', import.meta.url).pathname;
const TEST = new URL('./', import.meta.url).pathname;

const LAYERS: readonly (readonly string[])[] = [
  // 0. Pure foundations: money, batching, time formats; Brazilian, Andean and Mexican formats.
  ['lib', 'rails'],
  // 1. Infrastructure: the database, HTTP plumbing and the error catalogue, clocks, configuration, logs, metrics.
  ['db', 'http', 'clock', 'config', 'logger', 'metrics', 'version'],
  // 2. Shared mechanisms every domain writes through: ledger, outbox, job queue, fees and FX, pricing, the processor contract and its connectors.
  ['ledger', 'events', 'jobs', 'fees', 'pricing', 'processor', 'connectors'],
  // 3. Domains, and the context handed to their verbs.
  ['context', 'auth', 'vault', 'merchants', 'payments', 'refunds', 'payouts', 'checkout', 'checkout-page', 'subscriptions', 'three-ds', 'reports', 'webhooks', 'dashboard', 'admin', 'sandbox', 'system'],
  // 4. Composition roots: the processes and what they assemble (HTTP app, background work and its job registry, command line).
  ['app', 'main', 'worker', 'cli', 'server-commands', 'runtime', 'lifecycle', 'background', 'job-registry'],
];

/**
 * At most this many arrows may run back up the layers (issue 17 asks for 12). The arrows left are
 * listed in docs/architecture.md with what would remove them.
 */
const MAX_BACK_ARROWS = 12;

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

  it(`has at most ${MAX_BACK_ARROWS} arrows running back up the layers`, () => {
    const back = unitArrows(graph).filter((arrow) => layerOf(arrow.to) > layerOf(arrow.from));
    const listed = back.map((arrow) => `${arrow.from} -> ${arrow.to} (${arrow.imports.join(', ')})`);
    expect(back.length, `arrows back up the layers:\n${listed.join('\n')}`).toBeLessThanOrEqual(MAX_BACK_ARROWS);
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
    expect(kinds.map((k) => k.kind).sort()).toEqual(['payment.changed', 'payment.process', 'payout.process', 'refund.settle']);
    // A migration keeps the value it wrote when it was written, whatever the constant becomes.
    const migration = (file: string) => file.includes('/db/migrations/');
    for (const { file, kind } of kinds) {
      const elsewhere = [...texts].filter(([other, text]) => other !== file && !migration(other) && new RegExp(`['\`"]${kind.replace('.', '\\.')}[:'\`"]`).test(text)).map(([other]) => other);
      expect(elsewhere, `${kind} is written out instead of its constant`).toEqual([]);
    }
  });
});
