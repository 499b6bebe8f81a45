import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, query, type Json } from './api';
import { Confirm, Facts, Loading, LocaleContext, money, Pager, StatusBadge, Table, useJson, useLocale, when } from './components';
import { initialLanguage, LANGUAGES, saveLanguage, type Language } from './i18n';
import { OPERATOR_STRINGS, type OperatorStrings } from './operator-i18n';

/**
 * The operator view (/dashboard/operator): reconciliation runs, the lines that did not match, and their
 * resolution. It is a client of the admin API (docs/reconciliation.md), which it calls with the admin
 * token the operator types in. The token is kept in this module's memory only, never in storage or a
 * cookie, so closing or reloading the tab forgets it, and no other page of the origin can send it.
 */

interface Operator {
  token: string;
  name: string;
}

let operator: Operator | null = null;

/** A call to /admin/*, with the admin token and the operator's name (X-Operator): its status and JSON. */
async function adminRequest(method: string, path: string, body?: { json?: unknown; csv?: Blob }): Promise<{ status: number; body: Json }> {
  if (!operator) throw new ApiFailure(401, null);
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${operator.token}`, 'x-operator': operator.name };
  let payload: BodyInit | null = null;
  if (body?.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body?.csv) {
    headers['content-type'] = 'text/csv';
    payload = body.csv;
  }
  const response = await fetch(`/admin${path}`, { method, headers, body: payload, credentials: 'omit' });
  const text = await response.text();
  const parsed: unknown = text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  if (!response.ok) throw new ApiFailure(response.status, parsed);
  return { status: response.status, body: parsed };
}

const adminApi = async (method: string, path: string, body?: { json?: unknown; csv?: Blob }): Promise<Json> => (await adminRequest(method, path, body)).body;

const useAdminJson = (path: string) => useJson(path, (p) => adminApi('GET', p));

const useWords = (): OperatorStrings => OPERATOR_STRINGS[useLocale().lang];

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const o = useWords();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    operator = { token: String(form.get('adminToken') ?? '').trim(), name: String(form.get('operator') ?? '').trim() };
    setBusy(true);
    setError(undefined);
    try {
      await adminApi('GET', '/reconciliation/runs?size=1');
      onSignedIn();
    } catch (e) {
      operator = null;
      setError(e instanceof ApiFailure && e.status === 401 ? o.badToken : e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <form class="card" onSubmit=${submit} aria-labelledby="operator-sign-in-title">
      <h1 id="operator-sign-in-title">${o.signInTitle}</h1>
      <p class="muted">${o.signInHelp}</p>
      <label for="admin-token">${o.adminToken}</label>
      <input id="admin-token" name="adminToken" type="password" autocomplete="off" required maxlength="200" />
      <label for="operator-name">${o.operator}</label>
      <input id="operator-name" name="operator" autocomplete="name" required maxlength="100" pattern="[ -~]+" />
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      <button type="submit" class="primary" disabled=${busy}>${o.signInTitle}</button>
    </form>
  </main>`;
}

/** Upload of a report file; its run opens, saying whether the file was new (201) or imported before (200). */
function ImportForm() {
  const o = useWords();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const file = form.get('report');
    if (!(file instanceof File) || file.size === 0) return;
    setBusy(true);
    setError(undefined);
    try {
      const { status, body: run } = await adminRequest('POST', `/reconciliation/imports${query({ processor: String(form.get('processor')) })}`, { csv: file });
      location.hash = `#/runs/${run.run_id}?${status === 200 ? 'repeated' : 'imported'}=1`;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return html`<section class="card" aria-labelledby="import-title">
    <h2 id="import-title">${o.importTitle}</h2>
    <p class="muted">${o.importHelp}</p>
    <form class="filters" onSubmit=${submit}>
      <label>${o.processor}
        <select name="processor">
          <option value="adyen">Adyen</option>
          <option value="sandbox">Sandbox</option>
        </select>
      </label>
      <label>${o.file} <input type="file" name="report" accept=".csv,text/csv" required /></label>
      <button type="submit" class="primary" disabled=${busy}>${busy ? o.importing : o.importButton}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </section>`;
}

function RunList() {
  const locale = useLocale();
  const o = useWords();
  const [page, setPage] = useState(0);
  const [data, error] = useAdminJson(`/reconciliation/runs${query({ page, size: 20 })}`);
  return html`<h1>${o.runs}</h1>
    <p class="muted">${o.runHelp}</p>
    <${ImportForm} />
    ${!data
      ? html`<${Loading} error=${error} />`
      : data.content.length === 0
        ? html`<p class="muted">${o.noRuns}</p>`
        : html`<${Table} caption=${o.runs} head=${[o.importedAt, o.processor, o.period, o.lines, o.matched, o.mismatched, o.missingInColibri, o.missingAtProcessor, o.importedBy]}>
              ${data.content.map(
                (r: Json) => html`<tr data-run-id=${r.run_id}>
                  <td><a href=${`#/runs/${r.run_id}`}>${when(locale, r.created_at)}</a></td>
                  <td>${r.processor}</td>
                  <td>${r.period_from ? `${r.period_from.slice(0, 10)} – ${r.period_to.slice(0, 10)}` : locale.t.none}</td>
                  <td class="num">${r.lines}</td>
                  <td class="num">${r.matched}</td>
                  <td class="num">${r.mismatched}</td>
                  <td class="num">${r.missing_in_colibri}</td>
                  <td class="num">${r.missing_at_processor}</td>
                  <td>${r.imported_by ?? locale.t.none}</td>
                </tr>`,
              )}
            <//>
            <${Pager} page=${page} size=${data.size} total=${data.totalElements} onPage=${setPage} />`}`;
}

/** The resolution form of one line: a note, or an adjustment of the merchant's balance. */
function Resolve({ runId, line, onClose, onResolved }: { runId: string; line: Json; onClose: () => void; onResolved: () => void }) {
  const o = useWords();
  const [adjusting, setAdjusting] = useState(line.merchant_id !== null && line.reason !== 'MISSING_AT_PROCESSOR');
  const difference = line.reported_amount !== null && line.expected_amount !== null ? (line.reported_amount - line.expected_amount).toFixed(2) : '';
  const confirm = async () => {
    // The fields are inside the confirmation's own form, which the browser has checked (required) before this runs.
    const form = new FormData(document.querySelector<HTMLFormElement>('dialog.confirm form')!);
    const field = (name: string) => String(form.get(name) ?? '').trim();
    const json = adjusting
      ? { adjustment: { merchant_id: field('merchant_id'), amount: Number(field('amount')), currency: field('currency'), reason: field('reason') } }
      : { note: field('note') };
    await adminApi('POST', `/reconciliation/runs/${runId}/lines/${line.line_id}/resolve`, { json });
    onResolved();
  };
  return html`<${Confirm} title=${o.resolveTitle} onClose=${onClose} onConfirm=${confirm}>
    <p class="muted">${o.resolveHelp}</p>
    <label class="inline"><input type="checkbox" checked=${adjusting} onChange=${(e: Event) => setAdjusting((e.target as HTMLInputElement).checked)} /> ${o.withAdjustment}</label>
    ${adjusting
          ? html`<label for="adj-merchant">${o.merchantId}</label>
              <input id="adj-merchant" name="merchant_id" required value=${line.merchant_id ?? ''} />
              <label for="adj-amount">${o.amount}</label>
              <input id="adj-amount" name="amount" required inputmode="decimal" value=${difference} />
              <label for="adj-currency">${o.currency}</label>
              <input id="adj-currency" name="currency" required maxlength="3" value=${line.asset ?? ''} />
              <label for="adj-reason">${o.adjustmentReason}</label>
              <input id="adj-reason" name="reason" required maxlength="500" />`
          : html`<label for="resolve-note">${o.note}</label>
              <input id="resolve-note" name="note" required maxlength="500" />`}
  <//>`;
}

function RunPage({ id, params }: { id: string; params: URLSearchParams }) {
  const locale = useLocale();
  const o = useWords();
  const [status, setStatus] = useState('OPEN');
  const [reason, setReason] = useState('');
  const [page, setPage] = useState(0);
  const [resolving, setResolving] = useState<Json>();
  const [data, error, reload] = useAdminJson(`/reconciliation/runs/${encodeURIComponent(id)}${query({ status, reason, page, size: 50 })}`);
  const back = html`<p><a href="#/">← ${o.back}</a></p>`;
  if (!data) return html`${back}<${Loading} error=${error} />`;
  const lines = data.unmatched;
  return html`${back}
    <h1>${o.reconciliation}: ${data.processor} · ${when(locale, data.created_at)}</h1>
    ${params.has('imported') ? html`<p class="notice" role="status">${o.imported(data.lines)}</p>` : null}
    ${params.has('repeated') ? html`<p class="notice" role="status">${o.repeated}</p>` : null}
    <section class="card">
      <${Facts}
        items=${[
          [o.lines, data.lines],
          [o.matched, data.matched],
          [o.mismatched, data.mismatched],
          [o.missingInColibri, data.missing_in_colibri],
          [o.missingAtProcessor, data.missing_at_processor],
          [o.informational, data.informational],
          [o.importedBy, data.imported_by],
        ]}
      />
    </section>
    <h2>${o.unmatched}</h2>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>${o.status}
        <select value=${status} onChange=${(e: Event) => (setStatus((e.target as HTMLSelectElement).value), setPage(0))}>
          <option value="">${o.any}</option>
          ${Object.entries(o.statuses).map(([code, label]) => html`<option value=${code}>${label}</option>`)}
        </select>
      </label>
      <label>${o.reason}
        <select value=${reason} onChange=${(e: Event) => (setReason((e.target as HTMLSelectElement).value), setPage(0))}>
          <option value="">${o.any}</option>
          ${Object.entries(o.reasons).map(([code, label]) => html`<option value=${code}>${label}</option>`)}
        </select>
      </label>
    </form>
    ${lines.content.length === 0
      ? html`<p class="muted">${o.noLines}</p>`
      : html`<${Table} caption=${o.unmatched} head=${[o.line, o.reason, o.reference, o.reported, o.expected, o.fee, o.detail, o.status, '']}>
            ${lines.content.map(
              (l: Json) => html`<tr data-line-id=${l.line_id} data-reason=${l.reason}>
                <td class="num">${l.line_number ?? locale.t.none}</td>
                <td>${o.reasons[l.reason] ?? l.reason}</td>
                <td>${l.psp_reference ?? locale.t.none}<br /><small>${l.resource_id ?? l.merchant_reference ?? ''}</small></td>
                <td class="num">${money(locale, l.reported_amount, l.asset)}</td>
                <td class="num">${money(locale, l.expected_amount, l.asset)}</td>
                <td class="num">${l.reported_fee === null ? locale.t.none : `${money(locale, l.reported_fee, l.asset)}${l.expected_fee === null ? '' : ` / ${money(locale, l.expected_fee, l.asset)}`}`}</td>
                <td>${l.detail}</td>
                <td><${StatusBadge} status=${l.status} />${l.resolved_by ? html`<br /><small>${o.resolvedBy(l.resolved_by, when(locale, l.resolved_at))}</small>` : null}</td>
                <td>${l.status === 'OPEN' ? html`<button type="button" onClick=${() => setResolving(l)}>${o.resolve}</button>` : null}</td>
              </tr>`,
            )}
          <//>
          <${Pager} page=${page} size=${lines.size} total=${lines.totalElements} onPage=${setPage} />`}
    ${resolving ? html`<${Resolve} runId=${id} line=${resolving} onClose=${() => setResolving(undefined)} onResolved=${reload} />` : null}`;
}

function useHashRoute(): { path: string[]; params: URLSearchParams } {
  const read = () => {
    const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
    return { path: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
  };
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The operator view's root: its sign-in, then the runs and a run's lines. */
export function OperatorApp() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const [signedIn, setSignedIn] = useState(false);
  const { path, params } = useHashRoute();
  const o = OPERATOR_STRINGS[language];
  useEffect(() => {
    saveLanguage(language);
    document.title = o.title;
  }, [language]);
  const signOut = () => {
    operator = null;
    setSignedIn(false);
  };
  const picker = html`<label class="language">
    <select aria-label=${LANGUAGES[language].language} value=${language} onChange=${(e: Event) => setLanguage((e.target as HTMLSelectElement).value as Language)}>
      <option value="pt-BR" lang="pt-BR">Português</option>
      <option value="en" lang="en">English</option>
      <option value="es" lang="es">Español</option>
    </select>
  </label>`;
  const body = signedIn
    ? html`<header class="top">
          <span class="brand">Colibri</span>
          <span class="merchant">${o.reconciliation} · ${operator?.name}</span>
          ${picker}
          <button type="button" class="sign-out" onClick=${signOut}>${o.signOut}</button>
        </header>
        <main id="main" tabindex="-1">${path[0] === 'runs' && path[1] ? html`<${RunPage} id=${path[1]} params=${params} />` : html`<${RunList} />`}</main>`
    : html`<header class="top"><span class="brand">Colibri</span>${picker}</header><${SignIn} onSignedIn=${() => setSignedIn(true)} />`;
  return html`<${LocaleContext.Provider} value=${{ lang: language, t: LANGUAGES[language], zone: 'UTC', sandbox: false }}>${body}<//>`;
}
