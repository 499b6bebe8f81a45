import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { download, query, type Json } from './api';
import { go, Loading, Pager, Table, useJson, useLocale } from './components';
import { ReportEditor } from './report-editor';
import { REPORT_STRINGS } from './report-i18n';

export function ReportList() {
  const { lang, t } = useLocale();
  const [page, setPage] = useState(0);
  const [data, error] = useJson(`/reports${query({ page })}`);
  const create = html`<div class="actions"><a class="button" href="#/reports/new">+ ${REPORT_STRINGS[lang].newReport}</a></div>`;
  if (!data) return html`<h1>${t.reports}</h1><${Loading} error=${error} />`;
  return html`<h1>${t.reports}</h1>
    ${create}
    <${Table} caption=${t.reports} head=${['ID', t.name, t.type, t.enabled]}>
      ${data.content.map(
        (r: Json) => html`<tr>
          <td class="num">${r.id}</td>
          <td><a href=${`#/reports/${r.id}`}>${r.name}</a></td>
          <td>${REPORT_STRINGS[lang].typeNames[r.report_type] ?? r.report_type_name}</td>
          <td>${r.enable ? '✓' : '✗'}</td>
        </tr>`,
      )}
    <//>
    <${Pager} page=${page} size=${data.size} total=${data.totalElements} onPage=${setPage} />`;
}

/**
 * One report: its export, streamed with the bytes received shown as they arrive and then offered as a
 * download, and its definition in the report editor (report-editor.ts). `#/reports/new` is the editor
 * alone, for a new report.
 */
export function ReportPage({ id, created }: { id: string; created?: boolean }) {
  const { lang, t } = useLocale();
  const r = REPORT_STRINGS[lang];
  const isNew = id === 'new';
  const [data, error, reload] = useJson(isNew ? null : `/reports/${encodeURIComponent(id)}`);
  const [failure, setFailure] = useState<string>();
  const [progress, setProgress] = useState<string>();
  const [file, setFile] = useState<{ url: string; name: string }>();
  useEffect(() => () => file && URL.revokeObjectURL(file.url), [file]);
  const back = html`<p><a href="#/reports">← ${t.back}</a></p>`;
  if (isNew) {
    return html`${back}<h1>${r.newReport}</h1>
      <${ReportEditor} onSaved=${(saved: Json) => go(`/reports/${saved.id}?created=1`)} />`;
  }
  if (!data) return html`${back}<${Loading} error=${error} />`;

  const exportAs = async (format: 'csv' | 'json') => {
    setFailure(undefined);
    setFile(undefined);
    const kib = (bytes: number) => (bytes / 1024).toFixed(1);
    setProgress(t.exporting('0.0'));
    try {
      const blob = await download(`/reports/${encodeURIComponent(id)}/export?format=${format}`, (bytes) => setProgress(t.exporting(kib(bytes))));
      setProgress(t.exported(kib(blob.size)));
      setFile({ url: URL.createObjectURL(blob), name: `report-${id}.${format}` });
    } catch (e) {
      setProgress(undefined);
      setFailure(e instanceof Error ? e.message : String(e));
    }
  };
  return html`${back}
    <h1>${t.reports}: ${data.name}</h1>
    ${created ? html`<p class="notice" role="status">${r.created}</p>` : null}
    <section class="card">
      <h2>${t.export}</h2>
      <div class="actions">
        <button type="button" onClick=${() => exportAs('csv')}>${t.export} CSV</button>
        <button type="button" onClick=${() => exportAs('json')}>${t.export} JSON</button>
      </div>
      ${progress ? html`<p role="status" class="notice export-progress">${progress}</p>` : null}
      ${failure ? html`<p class="error" role="alert">${failure}</p>` : null}
      ${file ? html`<p><a class="button" href=${file.url} download=${file.name}>${t.download} ${file.name}</a></p>` : null}
    </section>
    <${ReportEditor} report=${data} onSaved=${() => reload()} />`;
}
