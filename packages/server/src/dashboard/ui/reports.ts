import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api, download, query, type Json } from './api';
import { Loading, Pager, Table, useJson, useLocale } from './components';

export function ReportList() {
  const { t } = useLocale();
  const [page, setPage] = useState(0);
  const [data, error] = useJson(`/reports${query({ page })}`);
  if (!data) return html`<h1>${t.reports}</h1><${Loading} error=${error} />`;
  return html`<h1>${t.reports}</h1>
    <${Table} caption=${t.reports} head=${['ID', t.name, t.type, t.enabled]}>
      ${data.content.map(
        (r: Json) => html`<tr>
          <td class="num">${r.id}</td>
          <td><a href=${`#/reports/${r.id}`}>${r.name}</a></td>
          <td>${r.report_type_name}</td>
          <td>${r.enable ? '✓' : '✗'}</td>
        </tr>`,
      )}
    <//>
    <${Pager} page=${page} size=${data.size} total=${data.totalElements} onPage=${setPage} />`;
}

/**
 * One report: its definition edited as JSON (the API's Report body, validated by the same rules), and
 * its export streamed with the bytes received shown as they arrive, then offered as a download.
 */
export function ReportPage({ id }: { id: string }) {
  const { t } = useLocale();
  const [data, error, reload] = useJson(`/reports/${encodeURIComponent(id)}`);
  const [text, setText] = useState('');
  const [notice, setNotice] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [progress, setProgress] = useState<string>();
  const [file, setFile] = useState<{ url: string; name: string }>();
  useEffect(() => {
    if (data) setText(JSON.stringify(data, null, 2));
  }, [data]);
  useEffect(() => () => file && URL.revokeObjectURL(file.url), [file]);
  if (!data) return html`<p><a href="#/reports">← ${t.back}</a></p><${Loading} error=${error} />`;

  const save = async (event: Event) => {
    event.preventDefault();
    setNotice(undefined);
    setFailure(undefined);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      setFailure(t.invalidJson);
      return;
    }
    try {
      await api('PUT', `/reports/${encodeURIComponent(id)}`, body);
      setNotice(t.saved);
      reload();
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
  };
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
  return html`<p><a href="#/reports">← ${t.back}</a></p>
    <h1>${t.reports}: ${data.name}</h1>
    <section class="card">
      <h2>${t.export}</h2>
      <div class="actions">
        <button type="button" onClick=${() => exportAs('csv')}>${t.export} CSV</button>
        <button type="button" onClick=${() => exportAs('json')}>${t.export} JSON</button>
      </div>
      ${progress ? html`<p role="status" class="notice export-progress">${progress}</p>` : null}
      ${file ? html`<p><a class="button" href=${file.url} download=${file.name}>${t.download} ${file.name}</a></p>` : null}
    </section>
    <form class="card" onSubmit=${save}>
      <h2>${t.edit}</h2>
      <label for="report-definition">${t.definition}</label>
      <textarea id="report-definition" rows="18" spellcheck=${false} value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      ${failure ? html`<p class="error" role="alert">${failure}</p>` : null}
      <div class="actions"><button type="submit" class="primary">${t.save}</button></div>
    </form>`;
}
