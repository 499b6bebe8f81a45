import { execFileSync } from 'node:child_process';

/**
 * The guides' examples, read as the guide test runs them (docs/conventions.md, "Examples in these guides").
 * A ```sh block is cut into steps: a step ends where the guide shows its output, the comment lines
 * directly under a command. What a step shows is compared loosely with what it printed, or with the last
 * answer it got when it printed nothing; an answer of 4xx is a mistake unless the step says
 * `# expected error: <status> [<code>]`. A block after `<!-- guide-test: skip (reason) -->` is not run,
 * and the test reports it with its reason; one after `<!-- guide-test: one engine (reason) -->` runs against
 * the first engine's service only, as it does not call the service (it runs a tool on its own database, say).
 */

export interface ExpectedError {
  status: number;
  code?: string;
}

export interface Step {
  /** Line in the guide where the step starts. */
  line: number;
  script: string;
  /** The output the guide shows under the step's last command, `# ` taken off; empty when it shows none. */
  shown: string;
  expectedErrors: ExpectedError[];
}

export interface Block {
  line: number;
  /** The reason of `<!-- guide-test: skip (reason) -->`, when the block is not run. */
  skip?: string;
  /** The reason of `<!-- guide-test: one engine (reason) -->`: the block gives the same result whatever the service's engine. */
  oneEngine?: string;
  steps: Step[];
}

/** `<!-- guide-test: skip (reason) -->` or `<!-- guide-test: one engine (reason) -->`: the kind, then the reason. */
const MARKER = /^<!-- guide-test: (skip|one engine)(?: \((.+)\))? -->$/;
const EXPECTED_ERROR = /^#\s*expected error:\s*(\d{3})(?:\s+(\d\d\.\d\d\.\d{4}))?\b/;
const COMMENT = /^\s*#/;

/** True when bash reads `script` as complete commands (not inside a quote, a loop or a here-document). */
function complete(script: string): boolean {
  try {
    execFileSync('bash', ['-n'], { input: script, stdio: ['pipe', 'ignore', 'ignore'] });
    return true;
  } catch {
    return false;
  }
}

/** The ```sh blocks of a guide, each cut into steps. A marker without its reason is refused. */
export function parseGuide(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    const marker = lines.slice(0, i).reverse().find((l) => l.trim() !== '');
    const [, kind, reason] = marker?.match(MARKER) ?? [];
    if (kind && !reason) throw new Error(`line ${i}: a guide-test ${kind} marker must say why, as <!-- guide-test: ${kind} (reason) -->`);
    blocks.push({
      line: i + 1,
      ...(kind === 'skip' ? { skip: reason } : kind === 'one engine' ? { oneEngine: reason } : {}),
      steps: splitSteps(lines.slice(start, end), start + 1),
    });
    i = end;
  }
  return blocks;
}

function splitSteps(lines: string[], firstLine: number): Step[] {
  const steps: Step[] = [];
  let from = 0;
  let i = 0;
  while (i < lines.length) {
    const after = i > from && lines[i - 1]!.trim() !== '' && !COMMENT.test(lines[i - 1]!);
    if (COMMENT.test(lines[i]!) && after && complete(lines.slice(from, i).join('\n'))) {
      let j = i;
      while (j < lines.length && COMMENT.test(lines[j]!)) j++;
      steps.push(step(lines.slice(from, j), lines.slice(i, j), firstLine + from));
      from = i = j;
    } else i++;
  }
  if (lines.slice(from).some((l) => l.trim() !== '' && !COMMENT.test(l))) steps.push(step(lines.slice(from), [], firstLine + from));
  return steps;
}

function step(script: string[], comments: string[], line: number): Step {
  const expectedErrors: ExpectedError[] = [];
  const shown: string[] = [];
  for (const comment of comments) {
    const expected = comment.trim().match(EXPECTED_ERROR);
    if (expected) expectedErrors.push({ status: Number(expected[1]), ...(expected[2] ? { code: expected[2] } : {}) });
    else shown.push(comment.replace(/^\s*# ?/, ''));
  }
  return { line, script: script.join('\n'), shown: shown.join('\n').trim(), expectedErrors };
}

// ---- Loose comparison ------------------------------------------------------------------------------

/** `…` anywhere: a value, a member or an item the guide leaves out. */
const ANY = Symbol('…');
type Pattern = typeof ANY | null | boolean | number | string | Pattern[] | { [key: string]: Pattern };

class Reader {
  i = 0;
  constructor(readonly text: string) {}
  space(): void {
    while (this.i < this.text.length && /\s/.test(this.text[this.i]!)) this.i++;
  }
  peek(): string {
    this.space();
    return this.text[this.i] ?? '';
  }
  take(token: string): boolean {
    if (this.peek() === '' || !this.text.startsWith(token, this.i)) return false;
    this.i += token.length;
    return true;
  }
  fail(what: string): never {
    throw new Error(`${what} at ${this.i}`);
  }
  value(): Pattern {
    const c = this.peek();
    if (this.take('…')) return ANY;
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"' || c === "'") return this.string();
    const literal = this.text.slice(this.i).match(/^(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)(?![\w.])/);
    if (!literal) this.fail('a value');
    this.i += literal[0].length;
    return JSON.parse(literal[0]) as Pattern;
  }
  string(): string {
    const quote = this.text[this.i]!;
    let out = '';
    for (this.i++; this.i < this.text.length; this.i++) {
      const c = this.text[this.i]!;
      if (c === quote) {
        this.i++;
        return out;
      }
      if (c !== '\\') {
        out += c;
        continue;
      }
      const next = this.text[++this.i]!;
      if (next === 'u') {
        out += String.fromCharCode(parseInt(this.text.slice(this.i + 1, this.i + 5), 16));
        this.i += 4;
      } else out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[next] ?? next;
    }
    return this.fail('a closing quote');
  }
  key(): string {
    if (this.peek() === '"' || this.peek() === "'") return this.string();
    const name = this.text.slice(this.i).match(/^[A-Za-z_$][\w$]*/);
    if (!name) this.fail('a key');
    this.i += name[0].length;
    return name[0];
  }
  object(): Pattern {
    this.take('{');
    const out: { [key: string]: Pattern } = {};
    while (!this.take('}')) {
      if (!this.take('…')) {
        const key = this.key();
        if (!this.take(':')) this.fail('":"');
        out[key] = this.value();
      }
      if (!this.take(',') && this.peek() !== '}' && this.peek() !== '…' && this.peek() !== '"') this.fail('"," or "}"');
    }
    return out;
  }
  array(): Pattern {
    this.take('[');
    const out: Pattern[] = [];
    while (!this.take(']')) {
      out.push(this.value());
      if (!this.take(',') && this.peek() !== ']') this.fail('"," or "]"');
    }
    return out;
  }
}

/**
 * Reads JSON as a guide writes it: JSON or Node's inspect form (`{ id: '…' }`), with `…` for what is
 * left out, a bare member list (`"payment":{…}`) read as an object, and a remark in parentheses after it.
 * Undefined when the text is not such a value.
 */
export function readValue(text: string): Pattern | undefined {
  for (const candidate of [text, `{${text}}`]) {
    try {
      const reader = new Reader(candidate);
      const value = reader.value();
      const rest = reader.text.slice(reader.i).trim();
      if (rest === '' || rest.startsWith('(')) return value;
    } catch {
      // not this form
    }
  }
  return undefined;
}

const DATE_TIME = /\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?|\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?/g;

/**
 * A shown string or line as a regular expression: `…` and, in values, `<what it is>` match anything;
 * a date or a time matches any date or time of the same form; the rest is literal.
 */
function glob(shown: string, placeholders: boolean): RegExp {
  // A string wrapped across comment lines: the break and the indentation read as one space.
  const parts = shown.replace(/\s*\n\s*/g, ' ').split(placeholders ? /(…|<[^<>]+>)/ : /(…)/);
  const source = parts
    .map((part, index) => {
      if (index % 2 === 1) return '[\\s\\S]*';
      let out = '';
      let last = 0;
      for (const m of part.matchAll(DATE_TIME)) {
        out += escape(part.slice(last, m.index)) + escape(m[0]).replace(/\d/g, '\\d');
        last = m.index! + m[0].length;
      }
      return out + escape(part.slice(last));
    })
    .join('');
  return new RegExp(`^${source}$`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Where `actual` differs from `shown` (a path and what differs), or undefined when it matches. */
export function differs(shown: Pattern, actual: unknown, path = '$'): string | undefined {
  if (shown === ANY) return undefined;
  if (typeof shown === 'string') {
    if (typeof actual !== 'string') return `${path}: the guide shows "${shown}", the answer has ${JSON.stringify(actual)}`;
    return glob(shown, true).test(actual) ? undefined : `${path}: the guide shows "${shown}", the answer has ${JSON.stringify(actual)}`;
  }
  if (shown === null || typeof shown !== 'object') {
    return Object.is(shown, actual) ? undefined : `${path}: the guide shows ${JSON.stringify(shown)}, the answer has ${JSON.stringify(actual)}`;
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return `${path}: the guide shows a list, the answer has ${JSON.stringify(actual)}`;
    const items = shown.filter((item) => item !== ANY);
    if (items.length === shown.length) {
      if (items.length !== actual.length) return `${path}: the guide shows ${items.length} items, the answer has ${actual.length}`;
      for (let k = 0; k < items.length; k++) {
        const d = differs(items[k]!, actual[k], `${path}[${k}]`);
        if (d) return d;
      }
      return undefined;
    }
    // With `…` among them, the items shown appear in this order, others between them.
    let at = 0;
    for (const item of items) {
      while (at < actual.length && differs(item, actual[at], path)) at++;
      if (at === actual.length) return `${path}: no item like ${JSON.stringify(item)} in order in ${JSON.stringify(actual).slice(0, 300)}`;
      at++;
    }
    return undefined;
  }
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: the guide shows an object, the answer has ${JSON.stringify(actual)}`;
  for (const [key, value] of Object.entries(shown)) {
    if (!(key in actual)) return `${path}.${key}: shown in the guide, absent from the answer`;
    const d = differs(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
    if (d) return d;
  }
  return undefined;
}

/** The last value printed: the shortest run of last lines that reads as one. */
function lastValue(printed: string): unknown {
  const lines = printed.trimEnd().split('\n');
  for (let k = 1; k <= Math.min(lines.length, 80); k++) {
    const text = lines.slice(-k).join('\n').trim();
    if (text === '') continue;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      const value = readValue(text);
      if (value !== undefined && value !== ANY) return value;
    }
  }
  return undefined;
}

/**
 * Compares the output a guide shows with what its step printed, or (a value shown for a command whose
 * output went into a variable) with the body of the step's last answer. Undefined when it matches.
 */
export function compareShown(shown: string, printed: string, lastAnswer: string | undefined): string | undefined {
  const pattern = readValue(shown);
  if (pattern !== undefined && pattern !== ANY) {
    const candidates: unknown[] = [];
    if (printed.trim() !== '') candidates.push(lastValue(printed));
    if (lastAnswer !== undefined) {
      try {
        candidates.push(JSON.parse(lastAnswer));
      } catch {
        // not a JSON answer
      }
    }
    const found = candidates.map((candidate) => differs(pattern, candidate));
    if (found.some((d) => d === undefined)) return undefined;
    if (found.length > 0) return [...new Set(found)].join('; ');
    return 'the guide shows a value, and the step printed none and got no JSON answer';
  }
  // Text: each line shown matches a printed line, in order.
  const lines = printed.split('\n').map((l) => l.replace(/\r$/, '').trim());
  let at = 0;
  for (const want of shown.split('\n').map((l) => l.trim()).filter((l) => l !== '')) {
    const re = glob(want, false);
    while (at < lines.length && !re.test(lines[at]!)) at++;
    if (at === lines.length) return `no printed line like "${want}"`;
    at++;
  }
  return undefined;
}
