import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { query } from './api';
import { Loading, useJson, useLocale } from './components';

// Only the parts the four charts use, so the bundle carries no other chart types.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

const PALETTE = ['#1f6feb', '#2da44e', '#bf8700', '#cf222e', '#8250df', '#0a7b83'];

/**
 * One chart on a canvas, with a text alternative: the canvas has a label, and the same figures are
 * one click away as a table for screen readers and for copying (or, given `table`, that table shown
 * under the chart). Amounts arrive as exact decimal strings; the chart plots them as numbers, which is
 * only drawing.
 */
export function ChartCard({
  id,
  title,
  labels,
  series,
  kind,
  percent,
  empty: emptyText,
  table,
}: {
  id: string;
  title: string;
  labels: string[];
  series: { label: string; values: (string | number | null)[] }[];
  kind: 'bar' | 'line';
  percent?: boolean;
  empty?: string;
  table?: unknown;
}) {
  const { t } = useLocale();
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const config: ChartConfiguration = {
      type: kind,
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.values.map((v) => (v === null ? null : Number(v) * (percent ? 100 : 1))),
          backgroundColor: PALETTE[i % PALETTE.length],
          borderColor: PALETTE[i % PALETTE.length],
          spanGaps: true,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: {
          x: { stacked: kind === 'bar' },
          y: { stacked: kind === 'bar', beginAtZero: true, ...(percent ? { max: 100 } : {}) },
        },
        plugins: { legend: { display: series.length > 1 || kind === 'bar' } },
      },
    };
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [JSON.stringify([labels, series, kind, percent])]);
  const empty = series.every((s) => s.values.every((v) => v === null || Number(v) === 0));
  return html`<section class="card chart-card" aria-labelledby=${`${id}-title`}>
    <h2 id=${`${id}-title`}>${title}</h2>
    ${empty ? html`<p class="muted">${emptyText ?? t.noData}</p>` : null}
    <div class="chart-box"><canvas id=${id} ref=${canvas} role="img" aria-label=${title}></canvas></div>
    ${table ?? html`<details>
      <summary>${t.showData}</summary>
      <div class="table-wrap">
        <table>
          <thead><tr><th scope="col">${t.day}</th>${series.map((s) => html`<th scope="col">${s.label}</th>`)}</tr></thead>
          <tbody>${labels.map((label, i) => html`<tr><th scope="row">${label}</th>${series.map((s) => html`<td class="num">${cell(s.values[i], percent)}</td>`)}</tr>`)}</tbody>
        </table>
      </div>
    </details>`}
  </section>`;
}

/** A table cell: the exact decimal as the server sent it, or a ratio as a percentage. */
function cell(value: string | number | null | undefined, percent: boolean | undefined): string {
  if (value === null || value === undefined) return '—';
  return percent ? `${(Number(value) * 100).toFixed(1)} %` : String(value);
}

export function Overview() {
  const { t } = useLocale();
  const [period, setPeriod] = useState<{ from?: string; to?: string; currency?: string }>({});
  const [data, error] = useJson(`/overview${query(period)}`);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    setPeriod({ from: String(form.get('from') || '') || undefined, to: String(form.get('to') || '') || undefined, currency: String(form.get('currency') || '') || undefined } as never);
  };
  if (!data) return html`<h1>${t.overview}</h1><${Loading} error=${error} />`;
  const days: string[] = data.days;
  return html`<h1>${t.overview}</h1>
    <form class="filters" onSubmit=${submit}>
      <label>${t.from} <input type="date" name="from" value=${data.days[0]} /></label>
      <label>${t.to} <input type="date" name="to" value=${data.days[days.length - 1]} /></label>
      <label>${t.currency}
        <select name="currency" value=${data.currency}>
          ${[...new Set([data.currency, ...data.currencies])].map((c: string) => html`<option value=${c}>${c}</option>`)}
        </select>
      </label>
      <button type="submit">${t.apply}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <div class="charts">
      <${ChartCard} id="chart-volume" kind="bar" title=${`${t.volumeByMethod} (${data.currency})`} labels=${days}
        series=${Object.entries(data.volume as Record<string, string[]>).map(([label, values]) => ({ label, values }))} />
      <${ChartCard} id="chart-approval" kind="line" percent=${true} title=${`${t.approvalRate} (%)`} labels=${days}
        series=${[{ label: t.approvalRate, values: data.approval_rate }]} />
      <${ChartCard} id="chart-refunds" kind="bar" title=${`${t.refundsPerDay} (${data.currency})`} labels=${days} series=${[{ label: t.refunds, values: data.refunds }]} />
      <${ChartCard} id="chart-payouts" kind="bar" title=${`${t.payoutsPerDay} (${data.currency})`} labels=${days} series=${[{ label: t.payouts, values: data.payouts }]} />
    </div>`;
}
