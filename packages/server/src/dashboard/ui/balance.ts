import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { BalanceType } from '../../ledger/ledger';
import { query, type Json } from './api';
import { ClockNote, Loading, money, Pager, Table, useJson, useLocale, when, type Locale } from './components';
import { BALANCE_STRINGS, formatDay, type BalanceStrings } from './balance-i18n';
import { ChartCard } from './overview';
import { Settlements } from './settlements';

/** The balance transaction types (ledger/ledger.ts BALANCE_TYPES, which the page does not bundle: it imports the database's types). */
const TYPES: BalanceType[] = ['PAYMENT', 'REFUND', 'FEE', 'DISPUTE', 'DISPUTE_REVERSAL', 'PAYOUT', 'SETTLEMENT', 'ADJUSTMENT'];

/** The three figures of each currency: what can be settled now, what is coming, what is held. */
function Figures({ balances }: { balances: Json[] }) {
  const locale = useLocale();
  const b = BALANCE_STRINGS[locale.lang];
  if (balances.length === 0) return html`<p class="muted">${b.noBalance}</p>`;
  return html`<div class="grid">${balances.map(
    (row: Json) => html`<section class="card" aria-labelledby=${`figures-${row.currency}`} data-currency=${row.currency}>
      <h2 id=${`figures-${row.currency}`}>${row.currency}</h2>
      <dl class="figures">
        <div class="figure-available"><dt>${b.available}</dt><dd>${money(locale, row.available, row.currency)}</dd></div>
        <div class="figure-pending"><dt>${b.pending}</dt><dd>${money(locale, row.pending, row.currency)}</dd></div>
        <div class="figure-reserved"><dt>${b.reserved}</dt><dd>${money(locale, row.reserved, row.currency)}</dd></div>
      </dl>
    </section>`,
  )}</div>
  <p class="muted">${b.figuresHelp}</p>`;
}

/** The days with money in a currency's period, then what comes after it and what disputes hold. */
function UpcomingTable({ upcoming, locale, b }: { upcoming: Json; locale: Locale; b: BalanceStrings }) {
  const { t } = locale;
  const c = upcoming.currency;
  const days = (upcoming.days as string[]).map((day, i) => ({ day, pending: upcoming.pending[i] as string, reserved: upcoming.reserved[i] as string }));
  const rows = days.filter((d) => Number(d.pending) !== 0 || Number(d.reserved) !== 0);
  const later = upcoming.later;
  return html`<${Table} caption=${`${b.upcoming} (${c})`} head=${[t.day, b.pending, b.reserved]}>
    ${rows.map(
      (d) => html`<tr data-day=${d.day}>
        <th scope="row">${formatDay(locale.lang, d.day)}</th>
        <td class="num">${money(locale, d.pending, c)}</td>
        <td class="num">${money(locale, d.reserved, c)}</td>
      </tr>`,
    )}
    ${Number(later.pending) !== 0 || Number(later.reserved) !== 0
      ? html`<tr data-day="later">
          <th scope="row" class="wrap">${b.after(formatDay(locale.lang, upcoming.until))}</th>
          <td class="num">${money(locale, later.pending, c)}</td>
          <td class="num">${money(locale, later.reserved, c)}</td>
        </tr>`
      : null}
    ${Number(upcoming.held) !== 0
      ? html`<tr data-day="held">
          <th scope="row" class="wrap">${b.held}</th>
          <td class="num">${t.none}</td>
          <td class="num">${money(locale, upcoming.held, c)}</td>
        </tr>`
      : null}
  <//>`;
}

function Upcoming({ upcoming, days }: { upcoming: Json[]; days: number }) {
  const locale = useLocale();
  const { t } = locale;
  const b = BALANCE_STRINGS[locale.lang];
  const currencies = upcoming.map((u: Json) => u.currency as string);
  const [chosen, setChosen] = useState<string>();
  const currency = chosen && currencies.includes(chosen) ? chosen : currencies.includes('BRL') ? 'BRL' : currencies[0];
  const shown = upcoming.find((u: Json) => u.currency === currency);
  return html`<section aria-labelledby="upcoming-title">
    <h2 id="upcoming-title">${b.upcoming}</h2>
    <p class="muted">${b.upcomingHelp(days)}</p>
    ${currencies.length > 1
      ? html`<form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
          <label>${t.currency}
            <select value=${currency} onChange=${(e: Event) => setChosen((e.target as HTMLSelectElement).value)}>
              ${currencies.map((c: string) => html`<option value=${c}>${c}</option>`)}
            </select>
          </label>
        </form>`
      : null}
    ${!shown
      ? html`<p class="muted">${b.nothingUpcoming(days)}</p>`
      : html`<${ChartCard}
          id="chart-upcoming"
          kind="bar"
          title=${b.perDay(shown.currency)}
          labels=${(shown.days as string[]).map((d) => formatDay(locale.lang, d))}
          series=${[
            { label: b.pending, values: shown.pending },
            { label: b.reserved, values: shown.reserved },
          ]}
          empty=${b.nothingUpcoming(days)}
          table=${html`<${UpcomingTable} upcoming=${shown} locale=${locale} b=${b} />`}
        />`}
  </section>`;
}

/** Where a transaction came from: its payment, dispute or payout page, by the merchant's reference; a settlement by its date. */
function Source({ row }: { row: Json }) {
  const locale = useLocale();
  const s = row.source;
  if (!s) return html`<code>${row.source_id}</code>`;
  if (s.kind === 'settlement') return html`${BALANCE_STRINGS[locale.lang].settlementOf(formatDay(locale.lang, s.reference))}`;
  const path = s.kind === 'payment' ? 'payments' : s.kind === 'dispute' ? 'disputes' : 'payouts';
  return html`<a href=${`#/${path}/${encodeURIComponent(s.id)}`}>${s.reference}</a>`;
}

function Transactions() {
  const locale = useLocale();
  const { t } = locale;
  const b = BALANCE_STRINGS[locale.lang];
  const [page, setPage] = useState(0);
  const [type, setType] = useState('');
  const [data, error] = useJson(`/balance/transactions${query({ page, type })}`);
  let body;
  if (!data) body = html`<${Loading} error=${error} />`;
  else if (data.rows.length === 0) body = html`<p class="muted">${b.noTransactions}</p>`;
  else {
    body = html`<${Table} caption=${b.transactions} head=${[t.created, t.type, b.gross, t.fees, b.net, b.availableOn, b.source]}>
        ${data.rows.map(
          (row: Json) => html`<tr data-transaction-id=${row.id} data-type=${row.type}>
            <td>${when(locale, row.created_at)}</td>
            <td>${b.types[row.type as BalanceType] ?? row.type}${row.reserved ? html` <span class="badge">${b.reservedMark}</span>` : null}</td>
            <td class="num">${money(locale, row.amount, row.asset)}</td>
            <td class="num">${money(locale, row.fee, row.asset)}</td>
            <td class="num">${money(locale, row.net, row.asset)}</td>
            <td>${formatDay(locale.lang, row.available_on)}</td>
            <td><${Source} row=${row} /></td>
          </tr>`,
        )}
      <//>
      <${Pager} page=${page} size=${data.size} total=${data.total} onPage=${setPage} />`;
  }
  return html`<section aria-labelledby="transactions-title">
    <h2 id="transactions-title">${b.transactions}</h2>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>${t.type}
        <select value=${type} onChange=${(e: Event) => (setType((e.target as HTMLSelectElement).value), setPage(0))}>
          <option value="">${t.any}</option>
          ${TYPES.map((code) => html`<option value=${code}>${b.types[code]}</option>`)}
        </select>
      </label>
    </form>
    ${body}
  </section>`;
}

export function BalancePage() {
  const { t } = useLocale();
  const [data, error] = useJson('/balance');
  return html`<h1>${t.balance}</h1>
    <${ClockNote} clock="merchant" />
    ${data
      ? html`<${Figures} balances=${data.balances} />
          <${Upcoming} upcoming=${data.upcoming} days=${data.horizon_days} />`
      : html`<${Loading} error=${error} />`}
    <${Settlements} />
    <${Transactions} />`;
}
