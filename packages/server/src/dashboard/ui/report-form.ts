import type { Json } from './api';
import type { ReportStrings } from './report-i18n';

/**
 * The report editor's model: a saved report (the spec's Report resource, docs/reports.md) as a draft
 * the form edits, the request body it sends back, the few checks the form makes before sending, and
 * the server's errors placed on the fields they name.
 *
 * Lists are edited in order: a column's, filter's or ordering's `position` is its place in the form,
 * renumbered on save, and an ordering names its column by the column itself (its `field_position` is
 * worked out on save), so moving a column never leaves an ordering pointing at another one.
 */

/** GET /dashboard/api/report-fields: the choices the rules allow. */
export interface Catalogue {
  report_types: string[];
  fields: CatalogueField[];
  operators_by_type: Record<string, string[]>;
  aggregations_by_type: Record<string, string[]>;
  dynamic_values: string[];
  wraps: string[];
  limits: { name: number; folder: number; alias: number; value: number; columns: number; filters: number; orderings: number };
}

export interface CatalogueField {
  id: number;
  name: string;
  group: string;
  type: 'string' | 'enum' | 'number' | 'money' | 'date';
  values: string[] | null;
  report_types: string[];
  masked: boolean;
}

export interface DraftColumn {
  key: string;
  id: number | null;
  field: number | null;
  alias: string;
  aggregation: string;
  arithmetic: string;
  wrap: string;
  open: boolean;
  close: boolean;
}

export interface DraftFilter {
  key: string;
  id: number | null;
  field: number | null;
  operator: string;
  value: string;
  logical: string;
  dynamic: boolean;
}

export interface DraftOrdering {
  key: string;
  id: number | null;
  /** The key of the column it orders by. */
  column: string;
  direction: string;
}

export interface Draft {
  name: string;
  folder: string;
  type: string;
  enable: boolean;
  offset: string;
  limit: string;
  columns: DraftColumn[];
  filters: DraftFilter[];
  /** Keys of the columns the rows are grouped by. */
  groupBy: string[];
  orderings: DraftOrdering[];
}

/** A field's problem, by its path in the request body (`fields[2].alias`), as the API names it. */
export type Problems = Map<string, string>;

let counter = 0;
/** A key for a new row of a list, unique within the page. */
export const newKey = (): string => `k${(counter += 1)}`;

export function newColumn(): DraftColumn {
  return { key: newKey(), id: null, field: null, alias: '', aggregation: '', arithmetic: '', wrap: '', open: false, close: false };
}

export function newFilter(): DraftFilter {
  return { key: newKey(), id: null, field: null, operator: '=', value: '', logical: 'AND', dynamic: false };
}

export function emptyDraft(): Draft {
  return { name: '', folder: '', type: 'PAYIN', enable: true, offset: '', limit: '', columns: [newColumn()], filters: [], groupBy: [], orderings: [] };
}

const byPosition = (a: { position: number }, b: { position: number }) => a.position - b.position;

/** The draft of a saved report. */
export function draftOf(report: Json): Draft {
  const sorted: Json[] = [...report.fields].sort(byPosition);
  const columns: DraftColumn[] = sorted.map((c: Json) => ({
    key: newKey(),
    id: c.id ?? null,
    field: c.field.id,
    alias: c.alias,
    aggregation: c.aggregation_operator ?? '',
    arithmetic: c.arithmetic_operator ?? '',
    wrap: c.wrap ?? '',
    open: Boolean(c.open_parentheses),
    close: Boolean(c.close_parentheses),
  }));
  const byAlias = new Map(columns.map((c) => [c.alias, c.key]));
  const positions = new Map<number, string>(sorted.map((c, i) => [c.position, columns[i]!.key]));
  return {
    name: report.name,
    folder: report.folder ?? '',
    type: report.report_type,
    enable: report.enable,
    offset: report.offset === null || report.offset === undefined ? '' : String(report.offset),
    limit: report.limit === null || report.limit === undefined ? '' : String(report.limit),
    columns,
    filters: [...report.filters].sort(byPosition).map((f: Json) => ({
      key: newKey(),
      id: f.id ?? null,
      field: f.field.id,
      operator: f.filter_operator,
      value: f.value,
      logical: f.logical_operator,
      dynamic: f.dynamic_filter,
    })),
    // The spec shows `[""]` for a report without grouping.
    groupBy: report.group_by.filter((alias: string) => alias !== '' && byAlias.has(alias)).map((alias: string) => byAlias.get(alias)!),
    orderings: [...report.order_by].sort(byPosition).map((o: Json) => ({ key: newKey(), id: o.id ?? null, column: positions.get(o.field_position) ?? '', direction: o.direction })),
  };
}

/** Whether a filter operator takes a value. */
export const takesValue = (operator: string): boolean => operator !== 'IS_NULL' && operator !== 'IS_NOT_NULL';

/** The request body of PUT (or POST) /dashboard/api/reports: a complete Report, as the API takes it. */
export function bodyOf(draft: Draft, reportId: number | undefined): Json {
  const position = new Map(draft.columns.map((c, i) => [c.key, i + 1]));
  const wholeOrNull = (text: string) => (text.trim() === '' ? null : Number(text));
  return {
    ...(reportId === undefined ? {} : { id: reportId }),
    name: draft.name,
    folder: draft.folder,
    report_type: draft.type,
    enable: draft.enable,
    offset: wholeOrNull(draft.offset),
    limit: wholeOrNull(draft.limit),
    fields: draft.columns.map((c, i) => ({
      field: { id: c.field ?? 0 },
      id: c.id,
      position: i + 1,
      alias: c.alias,
      aggregation_operator: c.aggregation || null,
      arithmetic_operator: c.arithmetic || null,
      wrap: c.wrap || null,
      open_parentheses: c.open,
      close_parentheses: c.close,
    })),
    filters: draft.filters.map((f, i) => ({
      field: { id: f.field ?? 0 },
      id: f.id,
      position: i + 1,
      filter_operator: f.operator,
      value: takesValue(f.operator) ? f.value : '',
      // The last filter joins nothing; the API still wants the member.
      logical_operator: i === draft.filters.length - 1 ? 'AND' : f.logical,
      dynamic_filter: takesValue(f.operator) && f.dynamic,
    })),
    group_by: draft.groupBy.map((key) => draft.columns.find((c) => c.key === key)?.alias ?? '').filter((alias) => alias !== ''),
    order_by: draft.orderings.map((o, i) => ({ id: o.id, position: i + 1, field_position: position.get(o.column) ?? 0, direction: o.direction })),
  };
}

/**
 * What the form can tell before sending: required fields, unique column names, fields of the report
 * type, whole numbers. Everything else (types, grouping, values) is the server's to judge.
 */
export function checkDraft(draft: Draft, catalogue: Catalogue, r: ReportStrings): Problems {
  const problems: Problems = new Map();
  const fieldOf = (id: number | null) => catalogue.fields.find((f) => f.id === id);
  if (draft.name.trim() === '') problems.set('name', r.required);
  for (const [path, text, min] of [
    ['offset', draft.offset, 0],
    ['limit', draft.limit, 1],
  ] as const) {
    if (text.trim() !== '' && !(/^\d{1,10}$/.test(text.trim()) && Number(text) >= min)) problems.set(path, r.wholeNumber(min));
  }
  if (draft.columns.length === 0) problems.set('fields', r.atLeastOneColumn);
  const aliases = new Set<string>();
  draft.columns.forEach((c, i) => {
    const field = fieldOf(c.field);
    if (!field) problems.set(`fields[${i}].field.id`, r.required);
    else if (!field.report_types.includes(draft.type)) problems.set(`fields[${i}].field.id`, r.notInType);
    if (c.alias.trim() === '') problems.set(`fields[${i}].alias`, r.required);
    else if (aliases.has(c.alias)) problems.set(`fields[${i}].alias`, r.aliasTaken);
    aliases.add(c.alias);
  });
  draft.filters.forEach((f, i) => {
    const field = fieldOf(f.field);
    if (!field) problems.set(`filters[${i}].field.id`, r.required);
    else if (!field.report_types.includes(draft.type)) problems.set(`filters[${i}].field.id`, r.notInType);
    else if (takesValue(f.operator) && f.value.trim() === '' && field.type !== 'string') problems.set(`filters[${i}].value`, r.required);
  });
  draft.orderings.forEach((o, i) => {
    if (!draft.columns.some((c) => c.key === o.column)) problems.set(`order_by[${i}].field_position`, r.required);
  });
  return problems;
}

const PATH = /^(?:name|folder|report_type|enable|offset|limit|id|fields|filters|group_by|order_by)(?:\[\d+\])?(?:\.[a-z_]+)*$/;

/**
 * The server's errors (400, `{errors: [{code, description}]}`, each description starting with the path
 * it names) placed on their fields, each message in the reader's language by its code. An error that
 * names no field of the form is kept under `''`, for the form as a whole.
 */
export function problemsOf(errors: { code: string; description: string }[], draft: Draft, catalogue: Catalogue, r: ReportStrings): Problems {
  const problems: Problems = new Map();
  for (const { code, description } of errors) {
    const colon = description.indexOf(': ');
    const named = colon > 0 ? description.slice(0, colon) : '';
    const path = PATH.test(named) ? pathOnForm(named) : '';
    // An error the form has no words for keeps the server's own.
    const message = code === '05.01.0004' ? valueMessage(path, draft, catalogue, r) : (r.errors[code] ?? (colon > 0 ? description.slice(colon + 2) : description));
    const earlier = problems.get(path);
    problems.set(path, earlier && earlier !== message ? `${earlier} ${message}` : message);
  }
  return problems;
}

/** Where the form shows a path: a group_by entry on the grouping box, a list's own bounds on the list. */
function pathOnForm(path: string): string {
  if (path.startsWith('group_by')) return 'group_by';
  if (path === 'id') return '';
  return path;
}

/** REPORT_FILTER_VALUE, said for the type of the filter's field. */
function valueMessage(path: string, draft: Draft, catalogue: Catalogue, r: ReportStrings): string {
  const index = /^filters\[(\d+)\]/.exec(path)?.[1];
  const filter = index === undefined ? undefined : draft.filters[Number(index)];
  const type = catalogue.fields.find((f) => f.id === filter?.field)?.type;
  return (type && r.invalidValue[type]) ?? r.invalid;
}
