import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiFailure, type Json } from './api';
import { Loading, useJson, useLocale } from './components';
import {
  bodyOf,
  checkDraft,
  draftOf,
  emptyDraft,
  newColumn,
  newFilter,
  newKey,
  problemsOf,
  takesValue,
  type Catalogue,
  type CatalogueField,
  type Draft,
  type DraftColumn,
  type DraftFilter,
  type Problems,
} from './report-form';
import { REPORT_STRINGS, type ReportStrings } from './report-i18n';

/** The id of a path's control (`fields[2].alias` → `report-fields-2-alias`) and of its error text. */
const idOf = (path: string) => `report-${path.replace(/[[\].]+/g, '-').replace(/-$/, '')}`;

/** Props that tie a control to its label's error: `aria-invalid` and `aria-describedby`. */
function wired(path: string, problems: Problems) {
  const invalid = problems.has(path);
  return { id: idOf(path), 'aria-invalid': invalid ? 'true' : undefined, 'aria-describedby': invalid ? `${idOf(path)}-error` : undefined };
}

function Problem({ path, problems }: { path: string; problems: Problems }) {
  const text = problems.get(path);
  return text ? html`<span class="field-error" id=${`${idOf(path)}-error`}>${text}</span>` : null;
}

/** A labelled control with its error below it; the error is the control's description, not part of its name. */
function Control({ path, label, problems, children }: { path: string; label: unknown; problems: Problems; children: unknown }) {
  return html`<div class="control">
    <label for=${idOf(path)}>${label}</label>
    ${children}
    <${Problem} path=${path} problems=${problems} />
  </div>`;
}

function moved<T>(list: T[], index: number, delta: number): T[] {
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(Math.max(0, Math.min(next.length, index + delta)), 0, item!);
  return next;
}

/** Up, down and remove buttons of one row of a list. */
function RowTools({ what, index, count, onMove, onRemove }: { what: string; index: number; count: number; onMove: (delta: number) => void; onRemove: () => void }) {
  const { lang } = useLocale();
  const r = REPORT_STRINGS[lang];
  return html`<div class="row-tools">
    <button type="button" aria-label=${r.moveUp(what)} title=${r.moveUp(what)} disabled=${index === 0} onClick=${() => onMove(-1)}>↑</button>
    <button type="button" aria-label=${r.moveDown(what)} title=${r.moveDown(what)} disabled=${index === count - 1} onClick=${() => onMove(1)}>↓</button>
    <button type="button" class="danger" aria-label=${r.remove(what)} title=${r.remove(what)} onClick=${onRemove}>✕</button>
  </div>`;
}

/** A select of the catalogue's fields for the report type, grouped; the current one is kept even if it no longer fits. */
function FieldSelect({ path, value, fields, type, problems, onChange, filterable }: { path: string; value: number | null; fields: CatalogueField[]; type: string; problems: Problems; onChange: (id: number) => void; filterable?: boolean }) {
  const { lang } = useLocale();
  const r = REPORT_STRINGS[lang];
  const offered = fields.filter((f) => f.id === value || (f.report_types.includes(type) && !(filterable && f.masked)));
  const groups = [...new Set(offered.map((f) => f.group))];
  return html`<${Control} path=${path} label=${r.field} problems=${problems}>
    <select ...${wired(path, problems)} value=${value === null ? '' : String(value)} onChange=${(e: Event) => onChange(Number((e.target as HTMLSelectElement).value))}>
      <option value="" disabled>${r.chooseField}</option>
      ${groups.map(
        (group) => html`<optgroup label=${r.groups[group] ?? group}>
          ${offered.filter((f) => f.group === group).map((f) => html`<option value=${String(f.id)}>${f.name}</option>`)}
        </optgroup>`,
      )}
    </select>
  <//>`;
}

function ColumnRow({ column, index, draft, catalogue, problems, update, r }: { column: DraftColumn; index: number; draft: Draft; catalogue: Catalogue; problems: Problems; update: (next: Draft) => void; r: ReportStrings }) {
  const at = `fields[${index}]`;
  const field = catalogue.fields.find((f) => f.id === column.field);
  const set = (patch: Partial<DraftColumn>) => update({ ...draft, columns: draft.columns.map((c) => (c.key === column.key ? { ...c, ...patch } : c)) });
  const chooseField = (id: number) => {
    const chosen = catalogue.fields.find((f) => f.id === id);
    const aggregations = chosen ? catalogue.aggregations_by_type[chosen.type] ?? [] : [];
    set({ field: id, alias: column.alias || (chosen?.name ?? ''), aggregation: aggregations.includes(column.aggregation) ? column.aggregation : '', wrap: chosen?.type === 'date' ? column.wrap : '' });
  };
  const name = r.column(index + 1);
  const pick = (path: string, label: string, value: string, options: [string, string][], onChange: (v: string) => void) =>
    html`<${Control} path=${path} label=${label} problems=${problems}>
      <select ...${wired(path, problems)} value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
        ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}
      </select>
    <//>`;
  return html`<fieldset class="item">
    <legend>${name}</legend>
    <div class="item-grid">
      <${FieldSelect} path=${`${at}.field.id`} value=${column.field} fields=${catalogue.fields} type=${draft.type} problems=${problems} onChange=${chooseField} />
      <${Control} path=${`${at}.alias`} label=${r.alias} problems=${problems}>
        <input ...${wired(`${at}.alias`, problems)} value=${column.alias} maxlength=${catalogue.limits.alias} onInput=${(e: Event) => set({ alias: (e.target as HTMLInputElement).value })} />
      <//>
      ${pick(`${at}.aggregation_operator`, r.aggregation, column.aggregation, [['', r.noAggregation], ...(field ? catalogue.aggregations_by_type[field.type] ?? [] : []).map((a): [string, string] => [a, r.aggregations[a] ?? a])], (v) => set({ aggregation: v }))}
      ${field?.type === 'date' || column.wrap
        ? pick(`${at}.wrap`, r.wrap, column.wrap, [['', r.noWrap], ...catalogue.wraps.map((w): [string, string] => [w, r.wraps[w] ?? w])], (v) => set({ wrap: v }))
        : null}
      ${pick(`${at}.arithmetic_operator`, r.arithmetic, column.arithmetic, [['', r.noArithmetic], ['+', '+'], ['-', '−']], (v) => set({ arithmetic: v }))}
      <fieldset class="inline" aria-describedby=${problems.has(`${at}.open_parentheses`) || problems.has(`${at}.close_parentheses`) ? `${idOf(`${at}.open_parentheses`)}-error ${idOf(`${at}.close_parentheses`)}-error` : undefined}>
        <legend>${r.parentheses}</legend>
        <label class="check"><input type="checkbox" id=${idOf(`${at}.open_parentheses`)} checked=${column.open} onChange=${(e: Event) => set({ open: (e.target as HTMLInputElement).checked })} /> ${r.openParenthesis}</label>
        <label class="check"><input type="checkbox" id=${idOf(`${at}.close_parentheses`)} checked=${column.close} onChange=${(e: Event) => set({ close: (e.target as HTMLInputElement).checked })} /> ${r.closeParenthesis}</label>
        <${Problem} path=${`${at}.open_parentheses`} problems=${problems} />
        <${Problem} path=${`${at}.close_parentheses`} problems=${problems} />
      </fieldset>
    </div>
    <${RowTools}
      what=${name}
      index=${index}
      count=${draft.columns.length}
      onMove=${(delta: number) => update({ ...draft, columns: moved(draft.columns, index, delta) })}
      onRemove=${() =>
        update({
          ...draft,
          columns: draft.columns.filter((c) => c.key !== column.key),
          groupBy: draft.groupBy.filter((k) => k !== column.key),
          orderings: draft.orderings.filter((o) => o.column !== column.key),
        })}
    />
  </fieldset>`;
}

function FilterRow({ filter, index, draft, catalogue, problems, update, r }: { filter: DraftFilter; index: number; draft: Draft; catalogue: Catalogue; problems: Problems; update: (next: Draft) => void; r: ReportStrings }) {
  const at = `filters[${index}]`;
  const field = catalogue.fields.find((f) => f.id === filter.field);
  const operators = field ? catalogue.operators_by_type[field.type] ?? [] : [];
  const set = (patch: Partial<DraftFilter>) => update({ ...draft, filters: draft.filters.map((f) => (f.key === filter.key ? { ...f, ...patch } : f)) });
  const chooseField = (id: number) => {
    const chosen = catalogue.fields.find((f) => f.id === id);
    const allowed = chosen ? catalogue.operators_by_type[chosen.type] ?? [] : [];
    set({ field: id, operator: allowed.includes(filter.operator) ? filter.operator : allowed[0] ?? '=', value: '', dynamic: false });
  };
  const valuePath = `${at}.value`;
  const onValue = (e: Event) => set({ value: (e.target as HTMLInputElement | HTMLSelectElement).value });
  let value = null;
  if (field && takesValue(filter.operator)) {
    const hint = field.type === 'enum' && filter.operator === 'IN' ? r.valueHints.enumList : r.valueHints[field.type];
    const control =
      filter.dynamic && field.type === 'date'
        ? html`<select ...${wired(valuePath, problems)} value=${filter.value} onChange=${onValue}>
            <option value="" disabled>—</option>
            ${catalogue.dynamic_values.map((v) => html`<option value=${v}>${r.dynamicValues[v] ?? v}</option>`)}
          </select>`
        : field.type === 'enum' && filter.operator !== 'IN'
          ? html`<select ...${wired(valuePath, problems)} value=${filter.value} onChange=${onValue}>
              <option value="" disabled>—</option>
              ${(field.values ?? []).map((v) => html`<option value=${v}>${v}</option>`)}
            </select>`
          : html`<input ...${wired(valuePath, problems)} value=${filter.value} maxlength=${catalogue.limits.value} inputmode=${field.type === 'number' || field.type === 'money' ? 'decimal' : undefined} placeholder=${hint || undefined} onInput=${onValue} />`;
    value = html`<${Control} path=${valuePath} label=${html`${r.value}${hint ? html` <span class="hint">(${hint})</span>` : null}`} problems=${problems}>${control}<//>
      ${field.type === 'date'
        ? html`<div class="control">
            <label class="check"><input type="checkbox" ...${wired(`${at}.dynamic_filter`, problems)} checked=${filter.dynamic} onChange=${(e: Event) => set({ dynamic: (e.target as HTMLInputElement).checked, value: '' })} /> ${r.dynamic}</label>
            <${Problem} path=${`${at}.dynamic_filter`} problems=${problems} />
          </div>`
        : null}`;
  }
  const name = r.filter(index + 1);
  return html`<fieldset class="item">
    <legend>${name}</legend>
    <div class="item-grid">
      <${FieldSelect} path=${`${at}.field.id`} value=${filter.field} fields=${catalogue.fields} type=${draft.type} problems=${problems} onChange=${chooseField} filterable=${true} />
      <${Control} path=${`${at}.filter_operator`} label=${r.operator} problems=${problems}>
        <select ...${wired(`${at}.filter_operator`, problems)} value=${filter.operator} disabled=${!field} onChange=${(e: Event) => set({ operator: (e.target as HTMLSelectElement).value, dynamic: false })}>
          ${(operators.includes(filter.operator) ? operators : [filter.operator, ...operators]).map((o) => html`<option value=${o}>${r.operators[o] ?? o}</option>`)}
        </select>
      <//>
      ${value}
      ${index < draft.filters.length - 1
        ? html`<${Control} path=${`${at}.logical_operator`} label=${r.joinNext} problems=${problems}>
            <select ...${wired(`${at}.logical_operator`, problems)} value=${filter.logical} onChange=${(e: Event) => set({ logical: (e.target as HTMLSelectElement).value })}>
              <option value="AND">${r.logical.AND}</option>
              <option value="OR">${r.logical.OR}</option>
            </select>
          <//>`
        : null}
    </div>
    <${RowTools}
      what=${name}
      index=${index}
      count=${draft.filters.length}
      onMove=${(delta: number) => update({ ...draft, filters: moved(draft.filters, index, delta) })}
      onRemove=${() => update({ ...draft, filters: draft.filters.filter((f) => f.key !== filter.key) })}
    />
  </fieldset>`;
}

/** How the error summary names a path: "Column 2, Column name". */
function labelOf(path: string, r: ReportStrings): string {
  const match = /^(fields|filters|order_by)\[(\d+)\]\.?(.*)$/.exec(path);
  const top: Record<string, string> = { name: r.general, folder: r.folder, report_type: r.reportType, offset: r.offset, limit: r.limit, fields: r.columns, filters: r.filters, group_by: r.groupBy, order_by: r.orderBy, '': r.general };
  if (!match) return top[path] ?? path;
  const n = Number(match[2]) + 1;
  const where = match[1] === 'fields' ? r.column(n) : match[1] === 'filters' ? r.filter(n) : r.ordering(n);
  const parts: Record<string, string> = {
    'field.id': r.field,
    alias: r.alias,
    aggregation_operator: r.aggregation,
    wrap: r.wrap,
    arithmetic_operator: r.arithmetic,
    open_parentheses: r.parentheses,
    close_parentheses: r.parentheses,
    filter_operator: r.operator,
    value: r.value,
    dynamic_filter: r.dynamic,
    logical_operator: r.joinNext,
    field_position: r.orderColumn,
    direction: r.direction,
  };
  return match[3] ? r.fieldLabel(where, parts[match[3]] ?? match[3]) : where;
}

/**
 * The report's definition as a form: name, folder, type, enabled, row bounds, then its columns,
 * filters, grouping and order. The form offers only choices the rules allow (fields of the type,
 * operators and aggregations of each field's type), checks what it can before sending, and shows the
 * server's verdict next to each field it names, with a summary that leads to them.
 */
export function ReportEditor({ report, onSaved }: { report?: Json; onSaved: (saved: Json, created: boolean) => void }) {
  const { lang, t } = useLocale();
  const r = REPORT_STRINGS[lang];
  const [catalogue, catalogueError] = useJson('/report-fields');
  const [draft, setDraft] = useState<Draft>(() => (report ? draftOf(report) : emptyDraft()));
  const [problems, setProblems] = useState<Problems>(new Map());
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string>();
  const summary = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (report) setDraft(draftOf(report));
  }, [report]);
  useEffect(() => {
    if (problems.size > 0) summary.current?.focus();
  }, [problems]);
  if (!catalogue) return html`<${Loading} error=${catalogueError} />`;
  const cat = catalogue as Catalogue;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });

  const save = async (event: Event) => {
    event.preventDefault();
    setNotice(undefined);
    const found = checkDraft(draft, cat, r);
    setProblems(found);
    if (found.size > 0) return;
    setBusy(true);
    try {
      const saved = report ? await api('PUT', `/reports/${report.id}`, bodyOf(draft, report.id)) : await api('POST', '/reports', bodyOf(draft, undefined));
      setNotice(report ? t.saved : r.created);
      onSaved(saved, !report);
    } catch (failure) {
      const errors = failure instanceof ApiFailure ? (failure.body as { errors?: { code: string; description: string }[] } | null)?.errors : undefined;
      setProblems(errors?.length ? problemsOf(errors, draft, cat, r) : new Map([['', failure instanceof Error ? failure.message : String(failure)]]));
    } finally {
      setBusy(false);
    }
  };

  const columnOptions = draft.columns.map((c, i) => [c.key, c.alias || r.column(i + 1)] as const);
  const top = (path: string, label: string, control: unknown) => html`<${Control} path=${path} label=${label} problems=${problems}>${control}<//>`;
  const text = (path: string, value: string, onInput: (v: string) => void, extra: Record<string, unknown> = {}) =>
    html`<input ...${wired(path, problems)} ...${extra} value=${value} onInput=${(e: Event) => onInput((e.target as HTMLInputElement).value)} />`;
  return html`<form class="card report-form" noValidate onSubmit=${save} aria-labelledby="report-form-title">
    <h2 id="report-form-title">${r.definitionTitle}</h2>
    ${problems.size > 0
      ? html`<div class="error-summary" role="alert" tabindex="-1" ref=${summary}>
          <p><strong>${r.problems(problems.size)}</strong></p>
          <ul>
            ${[...problems].map(
              ([path, message]) => html`<li>
                <button type="button" class="link" onClick=${() => document.getElementById(idOf(path))?.focus()}>${labelOf(path, r)}</button>: ${message}
              </li>`,
            )}
          </ul>
        </div>`
      : null}
    <fieldset class="item">
      <legend>${r.general}</legend>
      <div class="item-grid">
        ${top('name', t.name, text('name', draft.name, (v) => set({ name: v }), { maxlength: cat.limits.name }))}
        ${top('folder', `${r.folder} (${r.optional})`, text('folder', draft.folder, (v) => set({ folder: v }), { maxlength: cat.limits.folder }))}
        ${top(
          'report_type',
          r.reportType,
          html`<select ...${wired('report_type', problems)} value=${draft.type} onChange=${(e: Event) => set({ type: (e.target as HTMLSelectElement).value })}>
            ${cat.report_types.map((type) => html`<option value=${type}>${r.typeNames[type] ?? type}</option>`)}
          </select>`,
        )}
        ${top('offset', `${r.offset} (${r.optional})`, text('offset', draft.offset, (v) => set({ offset: v }), { inputmode: 'numeric' }))}
        ${top('limit', `${r.limit} (${r.optional})`, text('limit', draft.limit, (v) => set({ limit: v }), { inputmode: 'numeric' }))}
        <label class="check"><input type="checkbox" id=${idOf('enable')} checked=${draft.enable} onChange=${(e: Event) => set({ enable: (e.target as HTMLInputElement).checked })} /> ${r.enabled}</label>
      </div>
    </fieldset>

    <h3 id=${idOf('fields')} tabindex="-1">${r.columns}</h3>
    <${Problem} path="fields" problems=${problems} />
    ${draft.columns.map((column, index) => html`<${ColumnRow} key=${column.key} column=${column} index=${index} draft=${draft} catalogue=${cat} problems=${problems} update=${setDraft} r=${r} />`)}
    <div class="actions"><button type="button" disabled=${draft.columns.length >= cat.limits.columns} onClick=${() => set({ columns: [...draft.columns, newColumn()] })}>+ ${r.addColumn}</button></div>

    <h3 id=${idOf('filters')} tabindex="-1">${r.filters}</h3>
    ${draft.filters.length === 0 ? html`<p class="muted">${r.noFilters}</p>` : null}
    ${draft.filters.map((filter, index) => html`<${FilterRow} key=${filter.key} filter=${filter} index=${index} draft=${draft} catalogue=${cat} problems=${problems} update=${setDraft} r=${r} />`)}
    <div class="actions"><button type="button" disabled=${draft.filters.length >= cat.limits.filters} onClick=${() => set({ filters: [...draft.filters, newFilter()] })}>+ ${r.addFilter}</button></div>

    <fieldset class="item" id=${idOf('group_by')} tabindex="-1" aria-describedby=${problems.has('group_by') ? `${idOf('group_by')}-error` : undefined}>
      <legend>${r.groupBy}</legend>
      <p class="muted">${draft.columns.length === 0 ? r.noColumns : r.groupByHelp}</p>
      <div class="checks">
        ${columnOptions.map(
          ([key, label]) => html`<label class="check"><input type="checkbox" checked=${draft.groupBy.includes(key)}
            onChange=${(e: Event) => set({ groupBy: (e.target as HTMLInputElement).checked ? [...draft.groupBy, key] : draft.groupBy.filter((k) => k !== key) })} /> ${label}</label>`,
        )}
      </div>
      <${Problem} path="group_by" problems=${problems} />
    </fieldset>

    <h3 id=${idOf('order_by')} tabindex="-1">${r.orderBy}</h3>
    ${draft.orderings.map((ordering, index) => {
      const at = `order_by[${index}]`;
      const change = (patch: Partial<typeof ordering>) => set({ orderings: draft.orderings.map((o) => (o.key === ordering.key ? { ...o, ...patch } : o)) });
      return html`<fieldset class="item" key=${ordering.key}>
        <legend>${r.ordering(index + 1)}</legend>
        <div class="item-grid">
          ${top(
            `${at}.field_position`,
            r.orderColumn,
            html`<select ...${wired(`${at}.field_position`, problems)} value=${ordering.column} onChange=${(e: Event) => change({ column: (e.target as HTMLSelectElement).value })}>
              <option value="" disabled>—</option>
              ${columnOptions.map(([key, label]) => html`<option value=${key}>${label}</option>`)}
            </select>`,
          )}
          ${top(
            `${at}.direction`,
            r.direction,
            html`<select ...${wired(`${at}.direction`, problems)} value=${ordering.direction} onChange=${(e: Event) => change({ direction: (e.target as HTMLSelectElement).value })}>
              <option value="ASC">${r.directions.ASC}</option>
              <option value="DESC">${r.directions.DESC}</option>
            </select>`,
          )}
        </div>
        <${RowTools}
          what=${r.ordering(index + 1)}
          index=${index}
          count=${draft.orderings.length}
          onMove=${(delta: number) => set({ orderings: moved(draft.orderings, index, delta) })}
          onRemove=${() => set({ orderings: draft.orderings.filter((o) => o.key !== ordering.key) })}
        />
      </fieldset>`;
    })}
    <div class="actions">
      <button type="button" disabled=${draft.orderings.length >= cat.limits.orderings} onClick=${() => set({ orderings: [...draft.orderings, { key: newKey(), id: null, column: draft.columns[0]?.key ?? '', direction: 'ASC' }] })}>+ ${r.addOrdering}</button>
    </div>

    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <div class="actions"><button type="submit" class="primary" disabled=${busy}>${report ? t.save : r.create}</button></div>
  </form>`;
}
