import { sql } from 'kysely';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database';

/**
 * Business series read from the database when /metrics is scraped, so every process reports the same
 * figures for the whole deployment, whichever process the scraper reaches and whether or not it runs
 * workers. Each family is one aggregate statement; a snapshot is reused for `maxAgeMs` so that several
 * scrapers, or one scraping every API process, cost one round of statements per interval.
 *
 * The accepted and settled totals are counts of rows, which only grow (payments are never deleted), so
 * they are exposed as counters: `rate(colibri_payments_settled_total[5m])` is the settlement rate.
 * Alerts worth setting on these are listed in docs/operations.md.
 */
export interface BusinessSnapshot {
  readonly payments: readonly { method: string; status: string; count: number; settled: number }[];
  readonly jobs: readonly { kind: string; due: number; waiting: number; failed: number; oldestDueSeconds: number }[];
  readonly callbacks: {
    readonly pending: number;
    readonly oldestPendingSeconds: number;
    readonly failed: number;
    readonly recentDelivered: number;
    readonly recentLagSecondsAvg: number;
    readonly recentLagSecondsMax: number;
    readonly recentFailedAttempts: number;
  };
}

/** The window of "recent" callback figures: deliveries and attempts of the last five minutes. */
export const RECENT_WINDOW_SECONDS = 300;

/** Reads one snapshot of the business figures (also used by tests and `bench/`). */
export async function readBusinessSnapshot(db: Db): Promise<BusinessSnapshot> {
  const [payments, jobs, pending, recent, attempts] = await Promise.all([
    sql<{ method: string; status: string; count: string; settled: string }>`
      select method, status, count(*) as count, count(paid_at) as settled from payments group by method, status`.execute(db),
    sql<{ kind: string; due: string; waiting: string; failed: string; oldest: number | string | null }>`
      select kind,
        count(*) filter (where failed_at is null and run_at <= now()) as due,
        count(*) filter (where failed_at is null and run_at > now()) as waiting,
        count(*) filter (where failed_at is not null) as failed,
        extract(epoch from now() - min(run_at) filter (where failed_at is null and run_at <= now())) as oldest
      from jobs group by kind`.execute(db),
    sql<{ pending: string; failed: string; oldest: number | string | null }>`
      select count(*) filter (where status = 'PENDING') as pending,
        count(*) filter (where status = 'FAILED') as failed,
        extract(epoch from now() - min(created_at) filter (where status = 'PENDING')) as oldest
      from webhook_deliveries`.execute(db),
    sql<{ delivered: string; avg: number | string | null; max: number | string | null }>`
      select count(*) as delivered, avg(extract(epoch from delivered_at - created_at)) as avg, max(extract(epoch from delivered_at - created_at)) as max
      from webhook_deliveries where status = 'DELIVERED' and delivered_at > now() - make_interval(secs => ${RECENT_WINDOW_SECONDS})`.execute(db),
    sql<{ failed: string }>`
      select count(*) as failed from webhook_attempts
      where outcome <> 'DELIVERED' and started_at > now() - make_interval(secs => ${RECENT_WINDOW_SECONDS})`.execute(db),
  ]);
  const p = pending.rows[0];
  const r = recent.rows[0];
  return {
    payments: payments.rows.map((row) => ({ method: row.method, status: row.status, count: Number(row.count), settled: Number(row.settled) })),
    jobs: jobs.rows.map((row) => ({
      kind: row.kind,
      due: Number(row.due),
      waiting: Number(row.waiting),
      failed: Number(row.failed),
      oldestDueSeconds: Math.max(0, Number(row.oldest ?? 0)),
    })),
    callbacks: {
      pending: Number(p?.pending ?? 0),
      failed: Number(p?.failed ?? 0),
      oldestPendingSeconds: Math.max(0, Number(p?.oldest ?? 0)),
      recentDelivered: Number(r?.delivered ?? 0),
      recentLagSecondsAvg: Number(r?.avg ?? 0),
      recentLagSecondsMax: Number(r?.max ?? 0),
      recentFailedAttempts: Number(attempts.rows[0]?.failed ?? 0),
    },
  };
}

/**
 * Registers the business series in `registry`. A snapshot that cannot be read (the database is down)
 * leaves the series out of that scrape and sets `colibri_business_metrics_up` to 0, so /metrics still
 * answers with the process's own series and an alert can fire on the gap.
 * @example installBusinessMetrics(registry, ctx.db);
 */
export function installBusinessMetrics(registry: Registry, db: Db, maxAgeMs = 5_000): void {
  let cached: { at: number; snapshot: Promise<BusinessSnapshot | undefined> } | undefined;
  const snapshot = (): Promise<BusinessSnapshot | undefined> => {
    if (cached === undefined || Date.now() - cached.at > maxAgeMs) {
      cached = { at: Date.now(), snapshot: readBusinessSnapshot(db).catch(() => undefined) };
    }
    return cached.snapshot;
  };
  const registers = [registry];
  const gauge = (name: string, help: string, labelNames: readonly string[], fill: (g: Gauge, s: BusinessSnapshot) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        const s = await snapshot();
        if (s) fill(this, s);
      },
    });
  // Totals read from the database: each scrape sets the counter to the count of rows.
  const counter = (name: string, help: string, fill: (set: (method: string, total: number) => void, s: BusinessSnapshot) => void) =>
    new Counter({
      name,
      help,
      labelNames: ['method'],
      registers,
      async collect() {
        this.reset();
        const s = await snapshot();
        if (s) fill((method, total) => this.inc({ method }, total), s);
      },
    });

  new Gauge({
    name: 'colibri_business_metrics_up',
    help: '1 when the business series could be read from the database in this scrape, 0 when not',
    registers,
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
  gauge('colibri_payments', 'Payments by method and current status', ['method', 'status'], (g, s) => {
    for (const p of s.payments) g.set({ method: p.method, status: p.status }, p.count);
  });
  counter('colibri_payments_accepted_total', 'Payments accepted (created), by method', (set, s) => {
    for (const [method, count] of sumBy(s.payments, (p) => p.count)) set(method, count);
  });
  counter('colibri_payments_settled_total', 'Payments settled (paid at some point), by method', (set, s) => {
    for (const [method, count] of sumBy(s.payments, (p) => p.settled)) set(method, count);
  });
  gauge('colibri_jobs_due', 'Jobs due now and not yet finished (queue depth), by kind', ['kind'], (g, s) => {
    for (const j of s.jobs) g.set({ kind: j.kind }, j.due);
  });
  gauge('colibri_jobs_scheduled', 'Jobs waiting for a later run time (retries with backoff), by kind', ['kind'], (g, s) => {
    for (const j of s.jobs) g.set({ kind: j.kind }, j.waiting);
  });
  gauge('colibri_jobs_failed', 'Jobs that used up their attempts and need a person, by kind', ['kind'], (g, s) => {
    for (const j of s.jobs) g.set({ kind: j.kind }, j.failed);
  });
  gauge('colibri_jobs_oldest_due_age_seconds', 'How long the oldest due job has waited, by kind (0 when none is due)', ['kind'], (g, s) => {
    for (const j of s.jobs) g.set({ kind: j.kind }, j.oldestDueSeconds);
  });
  gauge('colibri_callbacks_pending', 'Callbacks not yet delivered nor given up', [], (g, s) => g.set(s.callbacks.pending));
  gauge('colibri_callbacks_oldest_pending_age_seconds', 'Age of the oldest pending callback: the delivery lag now', [], (g, s) => g.set(s.callbacks.oldestPendingSeconds));
  gauge('colibri_callbacks_failed', 'Callbacks given up after their retry window (until retried by hand)', [], (g, s) => g.set(s.callbacks.failed));
  gauge('colibri_callbacks_recent_delivered', `Callbacks delivered in the last ${RECENT_WINDOW_SECONDS} seconds`, [], (g, s) => g.set(s.callbacks.recentDelivered));
  gauge('colibri_callbacks_recent_lag_seconds', `Delivery lag (event to delivery) of callbacks delivered in the last ${RECENT_WINDOW_SECONDS} seconds`, ['stat'], (g, s) => {
    g.set({ stat: 'avg' }, s.callbacks.recentLagSecondsAvg);
    g.set({ stat: 'max' }, s.callbacks.recentLagSecondsMax);
  });
  gauge('colibri_callbacks_recent_failed_attempts', `Callback attempts that failed in the last ${RECENT_WINDOW_SECONDS} seconds`, [], (g, s) =>
    g.set(s.callbacks.recentFailedAttempts),
  );
}

function sumBy<T extends { method: string }>(rows: readonly T[], value: (row: T) => number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const row of rows) sums.set(row.method, (sums.get(row.method) ?? 0) + value(row));
  return sums;
}
