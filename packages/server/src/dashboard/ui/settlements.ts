import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { SettlementDestination } from '../../processor/processor';
import { api, type Json } from './api';
import { BALANCE_STRINGS, formatDay, type BalanceStrings } from './balance-i18n';
import { Confirm, Loading, money, Pager, StatusBadge, Table, useJson, useLocale, when } from './components';
import { StatusFilter, usePagedList } from './lists';

/** The contract's settlement statuses (settlements/states.ts, which the page does not bundle). */
const STATUSES = ['PENDING', 'IN_TRANSIT', 'PAID', 'FAILED'];

/** A masked destination, said with its kind: "PIX key (EMAIL) f*********@loja.com.br". */
function destinationText(b: BalanceStrings, destination: Json): string {
  const kind = b.kinds[destination.kind as SettlementDestination['kind']] ?? destination.kind;
  return `${kind}${destination.pix_key_type ? ` (${destination.pix_key_type})` : ''} ${destination.masked}`;
}

/** Where the money goes, whether settlements run, and the pause, after a confirmation. */
function SettlementSettings() {
  const locale = useLocale();
  const b = BALANCE_STRINGS[locale.lang];
  const [data, error, reload] = useJson('/settlements/settings');
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string>();
  if (!data) return html`<${Loading} error=${error} />`;
  const pausing = !data.paused;
  const toggle = async () => {
    await api('PUT', '/settlements/settings', { paused: pausing });
    setNotice(pausing ? b.paused : b.resumed);
    reload();
  };
  return html`<section class="card settlement-settings" aria-labelledby="settlement-settings-title">
    <h3 id="settlement-settings-title">${b.destination}</h3>
    ${data.currencies.length === 0
      ? html`<p class="muted">${b.noDestination}</p>`
      : html`<ul class="plain destinations">
          ${data.currencies.map(
            (c: Json) => html`<li data-currency=${c.currency}>
              <strong>${c.currency}</strong> · ${destinationText(b, c.destination)} · ${b.minimumFrom(money(locale, c.minimum, c.currency))}
            </li>`,
          )}
        </ul>`}
    ${data.held ? html`<p class="error" role="note">${b.heldState}</p>` : null}
    <p class="settlement-state">${data.paused ? b.pausedState : b.running}</p>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <div class="actions">
      <button type="button" class=${pausing ? 'danger' : 'primary'} onClick=${() => (setNotice(undefined), setConfirming(true))}>${pausing ? b.pause : b.resume}</button>
    </div>
    ${confirming
      ? html`<${Confirm} title=${pausing ? b.confirmPause : b.confirmResume} onClose=${() => setConfirming(false)} onConfirm=${toggle}>
          <p>${pausing ? b.confirmPauseText : b.confirmResumeText}</p>
        <//>`
      : null}
  </section>`;
}

/** The merchant's settlements, newest first, by status: amount, status, dates, the account masked. */
export function Settlements() {
  const locale = useLocale();
  const { t } = locale;
  const b = BALANCE_STRINGS[locale.lang];
  const list = usePagedList('/settlements');
  let body;
  if (!list.data) body = html`<${Loading} error=${list.error} />`;
  else if (list.data.rows.length === 0) body = html`<p class="muted">${b.noSettlements}</p>`;
  else {
    body = html`<${Table} caption=${b.settlements} head=${[b.settlementDate, t.amount, t.status, b.arrivalDate, b.destination, b.failure, t.created]}>
        ${list.data.rows.map(
          (s: Json) => html`<tr data-settlement-id=${s.settlement_id}>
            <td>${formatDay(locale.lang, s.settlement_date)}</td>
            <td class="num">${money(locale, s.amount, s.asset)}</td>
            <td><${StatusBadge} status=${s.status} /></td>
            <td>${formatDay(locale.lang, s.arrival_date)}</td>
            <td>${destinationText(b, s.destination)}</td>
            <td>${s.failure_code ? `${s.failure_code}${s.failure_description ? ` · ${s.failure_description}` : ''}` : t.none}</td>
            <td>${when(locale, s.created_at)}</td>
          </tr>`,
        )}
      <//>
      <${Pager} page=${list.page} size=${list.data.size} total=${list.data.total} onPage=${list.setPage} />`;
  }
  return html`<section aria-labelledby="settlements-title">
    <h2 id="settlements-title">${b.settlements}</h2>
    <p class="muted">${b.settlementsHelp}</p>
    <${SettlementSettings} />
    <${StatusFilter} statuses=${STATUSES} value=${list.status} onChange=${list.setStatus} />
    ${body}
  </section>`;
}
