import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { EVIDENCE_FILE_KINDS, EVIDENCE_FILE_MAX_BYTES, EVIDENCE_TEXT_FIELDS, EVIDENCE_TEXT_MAX } from '../../disputes/evidence-fields';
import { api, errorCodes, upload, type Json } from './api';
import { ClockNote, Confirm, Facts, Loading, money, Pager, StatusBadge, Table, useJson, useLocale, when, type Locale } from './components';
import { DISPUTE_STRINGS, type DisputeStrings } from './dispute-i18n';
import { StatusFilter, usePagedList } from './lists';

/** The contract's dispute statuses (disputes/states.ts, which the page does not bundle: it imports the server's connectors). */
const STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED'];
/** Text fields kept on one line; the others are paragraphs. */
const ONE_LINE = new Set<string>(['shipping_carrier', 'shipping_tracking_number']);
/** What the file input offers; the server judges the file by its content, whatever its name or type. */
const FILE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
/** Below this, the deadline shows in red: the merchant is warned by callback at the same moment. */
const URGENT_MS = 48 * 3_600_000;

/** `yyyy-MM-dd HH:mm:ss` (UTC, as the API writes times) in milliseconds. */
function timeOf(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** Renders again every `ms`, so that a countdown moves while the page stays open. */
function useTick(ms: number): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), ms);
    return () => clearInterval(timer);
  }, [ms]);
}

/**
 * The merchant's clock now: the `now` an answer carried, plus the time the browser has counted since it
 * arrived. Deadlines are kept on the merchant's clock, which a sandbox merchant may have moved ahead.
 */
function useMerchantClock(now: string | undefined): number {
  const arrived = useMemo(() => Date.now(), [now]);
  return now ? timeOf(now) + (Date.now() - arrived) : Date.now();
}

/** The time left to answer, red under 48 hours; the date itself once the dispute no longer waits. */
function Deadline({ dispute, clock }: { dispute: Json; clock: number }) {
  const locale = useLocale();
  const d = DISPUTE_STRINGS[locale.lang];
  if (!dispute.evidence_due_by) return html`${locale.t.none}`;
  if (dispute.status !== 'NEEDS_RESPONSE') return html`${when(locale, dispute.evidence_due_by)}`;
  const left = timeOf(dispute.evidence_due_by) - clock;
  const urgent = left < URGENT_MS;
  return html`<span class=${urgent ? 'deadline urgent' : 'deadline'} title=${when(locale, dispute.evidence_due_by)}>
    ${urgent ? html`<span aria-hidden="true">⚠ </span>` : null}${left > 0 ? d.left(left) : d.overdue}
  </span>`;
}

/** A failed call in the reader's words: the disputes' error codes are translated, others are shown as they came. */
function describeFailure(d: DisputeStrings, failure: unknown): string {
  const code = errorCodes(failure)[0];
  const words = code ? d.errors[code] : undefined;
  const detail = failure instanceof Error ? failure.message : String(failure);
  if (!words) return detail;
  return code === '09.04.0001' ? `${words} ${detail}` : words;
}

export function DisputeList() {
  const locale = useLocale();
  const { t } = locale;
  const d = DISPUTE_STRINGS[locale.lang];
  const list = usePagedList('/disputes');
  useTick(30_000);
  const clock = useMerchantClock(list.data?.now);
  let body;
  if (!list.data) body = html`<${Loading} error=${list.error} />`;
  else if (list.data.rows.length === 0) body = html`<p class="muted">${d.noDisputes}</p>`;
  else {
    body = html`<${Table} caption=${t.disputes} head=${[t.reference, t.status, t.amount, d.reason, d.stage, d.deadline, t.created]}>
        ${list.data.rows.map(
          (row: Json) => html`<tr data-dispute-id=${row.dispute_id}>
            <td><a href=${`#/disputes/${row.dispute_id}`}>${row.reference_id}</a></td>
            <td><${StatusBadge} status=${row.status} /></td>
            <td class="num">${money(locale, row.amount, row.asset)}</td>
            <td>${d.categories[row.reason_category] ?? row.reason_category}</td>
            <td>${d.stages[row.stage] ?? row.stage}</td>
            <td><${Deadline} dispute=${row} clock=${clock} /></td>
            <td>${when(locale, row.created_at)}</td>
          </tr>`,
        )}
      <//>
      <${Pager} page=${list.page} size=${list.data.size} total=${list.data.total} onPage=${list.setPage} />`;
  }
  return html`<h1>${t.disputes}</h1>
    <${StatusFilter} statuses=${STATUSES} value=${list.status} onChange=${list.setStatus} />
    <${ClockNote} clock="merchant" />
    ${body}`;
}

function facts(locale: Locale, d: DisputeStrings, dispute: Json): [string, unknown][] {
  const { t } = locale;
  const stamps: [string, string][] = [
    [d.submittedAt, 'submitted_at'],
    [d.wonAt, 'won_at'],
    [d.lostAt, 'lost_at'],
    [d.acceptedAt, 'accepted_at'],
  ];
  return [
    [d.disputeId, html`<code>${dispute.dispute_id}</code>`],
    [t.payment, html`<a href=${`#/payments/${dispute.payment_token}`}>${dispute.reference_id}</a>`],
    [t.amount, money(locale, dispute.amount, dispute.asset)],
    [d.fee, money(locale, dispute.fee, dispute.asset)],
    [d.reason, d.categories[dispute.reason_category] ?? dispute.reason_category],
    [d.reasonCode, dispute.reason_description ? `${dispute.reason_code} · ${dispute.reason_description}` : dispute.reason_code],
    [d.stage, d.stages[dispute.stage] ?? dispute.stage],
    [d.processor, dispute.processor],
    [d.evidenceDueBy, when(locale, dispute.evidence_due_by)],
    [t.created, when(locale, dispute.created_at)],
    ...stamps.filter(([, key]) => dispute[key]).map(([label, key]): [string, unknown] => [label, when(locale, dispute[key])]),
  ];
}

/** The text fields whose value in the form differs from the dispute's: what saving sends. */
function changedText(dispute: Json): Record<string, string> {
  const form = document.querySelector<HTMLFormElement>('form.evidence-text');
  if (!form) return {};
  const values = new FormData(form);
  const changed: Record<string, string> = {};
  for (const field of EVIDENCE_TEXT_FIELDS) {
    const value = String(values.get(field) ?? '');
    if (value !== (dispute.evidence[field] ?? '')) changed[field] = value;
  }
  return changed;
}

/** Sends the text fields that changed, if any. */
async function saveText(id: string, dispute: Json): Promise<void> {
  const changed = changedText(dispute);
  if (Object.keys(changed).length > 0) await api('POST', `/disputes/${encodeURIComponent(id)}/evidence`, changed);
}

function EvidenceText({ id, dispute, onSaved }: { id: string; dispute: Json; onSaved: () => void }) {
  const locale = useLocale();
  const d = DISPUTE_STRINGS[locale.lang];
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await saveText(id, dispute);
      setResult({ ok: true, text: d.evidenceSaved });
      onSaved();
    } catch (failure) {
      setResult({ ok: false, text: describeFailure(d, failure) });
    }
  };
  return html`<form class="evidence-text" onSubmit=${submit} aria-labelledby="evidence-title">
    <h2 id="evidence-title">${d.evidence}</h2>
    <p class="muted">${d.evidenceHelp}</p>
    ${EVIDENCE_TEXT_FIELDS.map((field) => {
      const label = d.fields[field];
      const value = dispute.evidence[field] ?? '';
      return ONE_LINE.has(field)
        ? html`<label>${label} <input name=${field} defaultValue=${value} maxlength=${200} /></label>`
        : html`<label>${label} <textarea name=${field} rows="3" maxlength=${EVIDENCE_TEXT_MAX} defaultValue=${value}></textarea></label>`;
    })}
    ${result ? html`<p class=${result.ok ? 'notice' : 'error'} role=${result.ok ? 'status' : 'alert'}>${result.text}</p>` : null}
    <div class="actions"><button type="submit">${d.saveEvidence}</button></div>
  </form>`;
}

function EvidenceUpload({ id, onUploaded }: { id: string; onUploaded: () => void }) {
  const locale = useLocale();
  const d = DISPUTE_STRINGS[locale.lang];
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    const kind = (form.elements.namedItem('kind') as HTMLSelectElement).value;
    if (!file) return setResult({ ok: false, text: d.chooseFile });
    if (file.size > EVIDENCE_FILE_MAX_BYTES) return setResult({ ok: false, text: d.tooLarge });
    if (file.type && !FILE_TYPES.includes(file.type)) return setResult({ ok: false, text: d.notAllowedType });
    // The kind goes before the file, so the server knows it when the file's bytes arrive.
    const body = new FormData();
    body.append('kind', kind);
    body.append('file', file, file.name);
    setBusy(true);
    setResult(undefined);
    try {
      await upload(`/disputes/${encodeURIComponent(id)}/evidence`, body);
      form.reset();
      setResult({ ok: true, text: d.uploaded(file.name) });
      onUploaded();
    } catch (failure) {
      setResult({ ok: false, text: describeFailure(d, failure) });
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="evidence-upload" onSubmit=${submit}>
    <label>${d.fileKind}
      <select name="kind">${EVIDENCE_FILE_KINDS.map((kind) => html`<option value=${kind}>${d.kinds[kind]}</option>`)}</select>
    </label>
    <label>${d.file} <input type="file" name="file" accept=${[...FILE_TYPES, '.pdf', '.jpg', '.jpeg', '.png'].join(',')} aria-describedby="file-hint" /></label>
    <p id="file-hint" class="muted hint">${d.fileHint}</p>
    ${result ? html`<p class=${result.ok ? 'notice' : 'error'} role=${result.ok ? 'status' : 'alert'}>${result.text}</p>` : null}
    <div class="actions"><button type="submit" disabled=${busy}>${busy ? d.uploading : d.upload}</button></div>
  </form>`;
}

function Files({ id, dispute, open, onUploaded }: { id: string; dispute: Json; open: boolean; onUploaded: () => void }) {
  const locale = useLocale();
  const { t } = locale;
  const d = DISPUTE_STRINGS[locale.lang];
  const files: Json[] = dispute.evidence.files;
  return html`<section class="card" aria-labelledby="files-title">
    <h2 id="files-title">${d.files}</h2>
    ${files.length === 0
      ? html`<p class="muted">${d.noFiles}</p>`
      : html`<ul class="plain files">
          ${files.map(
            (f: Json) => html`<li>
              <a href=${`/dashboard/api/disputes/${encodeURIComponent(id)}/evidence/${encodeURIComponent(f.file_id)}`} download=${f.filename}
                ><span class="visually-hidden">${t.download} </span>${f.filename}</a
              >
              <span class="muted"> · ${d.kinds[f.kind] ?? f.kind} · ${(f.size / 1024).toFixed(1)} KiB · ${when(locale, f.created_at)}</span>
            </li>`,
          )}
        </ul>`}
    ${open ? html`<${EvidenceUpload} id=${id} onUploaded=${onUploaded} />` : null}
  </section>`;
}

export function DisputePage({ id, sandbox }: { id: string; sandbox: boolean }) {
  const locale = useLocale();
  const { t } = locale;
  const d = DISPUTE_STRINGS[locale.lang];
  const [data, error, reload] = useJson(`/disputes/${encodeURIComponent(id)}`);
  const [confirming, setConfirming] = useState<'submit' | 'accept' | null>(null);
  const [notice, setNotice] = useState<{ ok: boolean; text: string }>();
  useTick(30_000);
  const clock = useMerchantClock(data?.now);
  const back = html`<p><a href="#/disputes">← ${t.back}</a></p>`;
  if (!data) return html`${back}<${Loading} error=${error} />`;
  const open = data.status === 'NEEDS_RESPONSE';
  const path = `/disputes/${encodeURIComponent(id)}`;

  const respond = async (action: 'submit' | 'accept') => {
    try {
      // Text typed and not saved yet goes with the submission rather than being lost.
      if (action === 'submit') await saveText(id, data);
      await api('POST', `${path}/${action}`);
    } catch (failure) {
      throw new Error(describeFailure(d, failure), { cause: failure });
    }
    setNotice({ ok: true, text: action === 'submit' ? d.submitted : d.accepted });
    reload();
  };
  const rule = async (outcome: 'WON' | 'LOST') => {
    try {
      await api('POST', `/sandbox/disputes/${encodeURIComponent(id)}/close`, { outcome });
      reload();
    } catch (failure) {
      setNotice({ ok: false, text: describeFailure(d, failure) });
    }
  };

  const dialog = confirming
    ? html`<${Confirm} title=${confirming === 'submit' ? d.confirmSubmit : d.confirmAccept} onClose=${() => setConfirming(null)} onConfirm=${() => respond(confirming)}>
        <p>${confirming === 'submit' ? d.confirmSubmitText : d.confirmAcceptText}</p>
      <//>`
    : null;
  const written = EVIDENCE_TEXT_FIELDS.filter((field) => data.evidence[field]);

  return html`${back}
    <h1>${d.dispute} ${data.reference_id} <${StatusBadge} status=${data.status} /></h1>
    <${ClockNote} clock="merchant" />
    ${open ? html`<p class="deadline-line">${d.deadline}: <${Deadline} dispute=${data} clock=${clock} /></p>` : null}
    ${notice ? html`<p class=${notice.ok ? 'notice' : 'error'} role=${notice.ok ? 'status' : 'alert'}>${notice.text}</p>` : null}
    ${open
      ? html`<div class="actions">
          <button type="button" class="primary" onClick=${() => setConfirming('submit')}>${d.submit}</button>
          <button type="button" class="danger" onClick=${() => setConfirming('accept')}>${d.accept}</button>
        </div>`
      : null}
    ${sandbox && data.status === 'UNDER_REVIEW'
      ? html`<div class="actions" role="group" aria-label=${d.sandboxRule}>
          <span class="muted">${d.sandboxRule}:</span>
          <button type="button" onClick=${() => rule('WON')}>${d.won}</button>
          <button type="button" onClick=${() => rule('LOST')}>${d.lost}</button>
        </div>`
      : null}
    ${dialog}
    <div class="grid">
      <section class="card" aria-labelledby="dispute-title">
        <h2 id="dispute-title">${d.dispute}</h2>
        <${Facts} items=${facts(locale, d, data)} />
      </section>
      <${Files} id=${id} dispute=${data} open=${open} onUploaded=${reload} />
    </div>
    <section class="card">
      ${open
        ? html`<${EvidenceText} id=${id} dispute=${data} onSaved=${reload} />`
        : html`<h2>${d.evidence}</h2>
            <p class="muted">${d.closed}</p>
            ${written.length > 0 ? html`<${Facts} items=${written.map((field): [string, unknown] => [d.fields[field] ?? field, data.evidence[field]])} />` : null}`}
    </section>`;
}
