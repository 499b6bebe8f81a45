import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of a source tree, read with TypeScript's own pre-processor (every `import`,
 * `import type`, `export … from` and `import()` of a relative path), for test/architecture.test.ts.
 * Type-only imports count: they tie modules together as much for a reader as runtime ones do.
 */

/** A source file and the source files it imports, as paths relative to the root with `/` separators. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Source files under `root`: `.ts` and `.tsx`, declaration files left out, and tests unless `withTests`. */
export function sourceFiles(root: string, withTests = false): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && (withTests || !/\.test\.tsx?$/.test(name)) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  walk(root);
  return files.map((file) => relative(root, file).split(sep).join('/'));
}

/** @example const graph = importGraph('packages/server/src'); graph.get('app.ts') // ['admin/routes.ts', …] */
export function importGraph(root: string): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveSource(root, file, specifier))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

function resolveSource(root: string, from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
  const hit = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (!hit) return undefined;
  const path = relative(root, hit).split(sep).join('/');
  return path.startsWith('..') ? undefined : path;
}

/**
 * The import circles: groups of two or more files that reach each other through their imports (the
 * strongly connected components of the graph, by Tarjan's algorithm), and files that import themselves.
 */
export function importCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** The unit a file belongs to: its top folder under the root, or its own name for a top-level file (`cli.ts` and `cli/` are one unit). */
export function unitOf(file: string): string {
  const [first = file] = file.split('/');
  return first.replace(/\.tsx?$/, '');
}

/** One arrow between units, with the file imports that make it. */
export interface UnitArrow {
  from: string;
  to: string;
  imports: string[];
}

/** The arrows between units (each pair once), with the imports behind each. */
export function unitArrows(graph: ImportGraph): UnitArrow[] {
  const arrows = new Map<string, UnitArrow>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const from = unitOf(file);
      const to = unitOf(target);
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      const arrow = arrows.get(key) ?? { from, to, imports: [] };
      arrow.imports.push(`${file} -> ${target}`);
      arrows.set(key, arrow);
    }
  }
  return [...arrows.values()].sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

/**
 * The pairs of units that import each other (counting type-only imports, as the graph does), each
 * written once in alphabetical order: `checkout <-> payments`.
 * @example twoWayPairs(importGraph('packages/server/src')) // ['checkout <-> payments', …]
 */
export function twoWayPairs(graph: ImportGraph): string[] {
  const arrows = new Set(unitArrows(graph).map((arrow) => `${arrow.from} -> ${arrow.to}`));
  return unitArrows(graph)
    .filter((arrow) => arrow.from < arrow.to && arrows.has(`${arrow.to} -> ${arrow.from}`))
    .map((arrow) => `${arrow.from} <-> ${arrow.to}`)
    .sort();
}
