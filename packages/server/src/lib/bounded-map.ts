/**
 * A Map for remembering a pure function's answers on a hot path, which empties itself when a new key would
 * take it past `limit` entries. The keys such a memory serves repeat within moments (the instants of one
 * statement's rows, the days of one report), so an eviction order would cost more than refilling.
 * @example const DAYS = new BoundedMap<string, number>(10_001); DAYS.set('2026-11-29', Date.UTC(2026, 10, 29));
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.clear();
    return super.set(key, value);
  }
}
