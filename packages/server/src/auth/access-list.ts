import { sql } from 'kysely';
import type { Db } from '../db/database';
import type { Principal } from './tokens';

/** After this long, a request starts a refresh of the list in the background and is answered at once. */
export const ACCESS_REFRESH_MS = 1_000;
/** After this long (an idle process), a request waits for the refresh: no answer is older than this. */
export const ACCESS_MAX_AGE_MS = 4_000;

/**
 * Which merchants and users are disabled, as this process last read them. A token stays valid for 5
 * minutes, so revocation cannot wait for it to expire; checking the database on every request would
 * cost a round trip on the busiest paths. Instead every enable and disable (admin/access-routes.ts)
 * increments `access_version` in `settings` in the same transaction, and each process reads that
 * one value at most once a second, re-reading the (small) lists of disabled rows only when it has
 * changed. A busy process answers from memory and refreshes in the background; an idle one waits for
 * the refresh, so a disabled merchant's or user's tokens stop working within {@link ACCESS_MAX_AGE_MS}
 * plus one refresh, inside the contract's 5 seconds.
 *
 * A change made directly in the database must increment `access_version` too, or it is seen only
 * when another change does.
 */
export class AccessList {
  private disabledUsers = new Set<string>();
  private disabledMerchants = new Set<string>();
  private version: string | null = null;
  private readAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly refreshMs = ACCESS_REFRESH_MS,
    private readonly maxAgeMs = ACCESS_MAX_AGE_MS,
  ) {}

  /**
   * Whether the principal may call, answered from memory when the list is recent enough; undefined
   * when it is not (then await {@link check}).
   * @example const allowed = access.allows(principal) ?? (await access.check(principal));
   */
  allows(principal: Principal, now = Date.now()): boolean | undefined {
    const age = now - this.readAt;
    if (age >= this.maxAgeMs) return undefined;
    if (age >= this.refreshMs) this.refresh().catch(() => undefined);
    return this.permits(principal);
  }

  /** Whether the principal may call, reading the list first if it is too old. @example await access.check(principal) */
  async check(principal: Principal): Promise<boolean> {
    const known = this.allows(principal);
    if (known !== undefined) return known;
    await this.refresh();
    return this.permits(principal);
  }

  /** Whether a merchant is disabled, with the same freshness as {@link check}. @example await access.merchantDisabled(id) */
  async merchantDisabled(merchantId: string): Promise<boolean> {
    if (Date.now() - this.readAt >= this.maxAgeMs) await this.refresh();
    return this.disabledMerchants.has(merchantId);
  }

  /** Forgets the list, so a change this process has just made applies to its next request. */
  invalidate(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }

  /** Reads the version and, when it moved, the lists; concurrent callers share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private permits(principal: Principal): boolean {
    return !this.disabledUsers.has(principal.userId) && !this.disabledMerchants.has(principal.merchantId);
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', 'access_version').executeTakeFirst();
    const version = row?.value ?? '0';
    if (version !== this.version) {
      const { rows } = await sql<{ kind: 'user' | 'merchant'; id: string }>`
        select 'user' as kind, id from users where not enabled
        union all
        select 'merchant' as kind, id from merchants where not enabled`.execute(this.db);
      this.disabledUsers = new Set(rows.filter((r) => r.kind === 'user').map((r) => r.id));
      this.disabledMerchants = new Set(rows.filter((r) => r.kind === 'merchant').map((r) => r.id));
      this.version = version;
    }
    this.readAt = startedAt;
  }
}

/**
 * Increments `access_version`, in the transaction that enables or disables a merchant or user.
 * @example await bumpAccessVersion(trx);
 */
export async function bumpAccessVersion(db: Db): Promise<void> {
  await sql`
    insert into settings (key, value) values ('access_version', '1')
    on conflict (key) do update set value = (settings.value::bigint + 1)::text`.execute(db);
}
