import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link of the README and the guides names a file that exists and, with a `#fragment`, a
 * heading of that file: the guides link to each other's sections, and a renamed heading
 * would otherwise leave them pointing nowhere.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCUMENTS = [
  'README.md',
  'packages/sdk/README.md',
  ...readdirSync(resolve(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A document's text without its fenced code blocks, where `](…)` and `#` lines are code, not links and headings. */
function prose(file: string): string {
  return readFileSync(file, 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
}

/** The fragments GitHub gives a document's headings (a link in a heading counts by its text). */
function headingFragments(text: string): Set<string> {
  const slugger = new GithubSlugger();
  return new Set([...text.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)].map(([, heading]) => slugger.slug((heading as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))));
}

/** The relative links of a document, as written: `[text](target)`, web and mail addresses left out. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links between the guides', () => {
  it('reads GitHub fragments from headings as GitHub makes them', () => {
    const fragments = headingFragments('# Money in flight\n## `colibri doctor`: checks\n## Fees\n## Fees\n### A dispute’s life (PIX MED)\n');
    expect([...fragments]).toEqual(['money-in-flight', 'colibri-doctor-checks', 'fees', 'fees-1', 'a-disputes-life-pix-med']);
  });

  it('names a file that exists, and a heading of it where the link has a fragment', () => {
    const broken: string[] = [];
    const fragmentsOf = new Map<string, Set<string>>();
    const fragments = (file: string) => fragmentsOf.get(file) ?? fragmentsOf.set(file, headingFragments(prose(file))).get(file)!;
    let checked = 0;
    for (const document of DOCUMENTS) {
      const from = resolve(ROOT, document);
      for (const target of relativeLinks(prose(from))) {
        checked++;
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const file = path === '' ? from : resolve(dirname(from), decodeURIComponent(path));
        if (!existsSync(file)) broken.push(`${document}: ${target} (no file ${relative(ROOT, file)})`);
        else if (fragment && file.endsWith('.md') && !fragments(file).has(fragment)) broken.push(`${document}: ${target} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});
