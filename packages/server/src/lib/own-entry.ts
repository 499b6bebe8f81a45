/**
 * The entry a constant table holds under `key` itself, or undefined: for tables looked up by text from
 * outside (a request, an uploaded file, a processor's answer, a command-line argument). A plain object
 * also answers for the names every object inherits (`constructor` and `toString` find functions,
 * `__proto__` finds Object.prototype, and `key in table` is true for each), so such a key must find
 * nothing, like any other key the table does not list.
 * @example ownEntry(TIME_ZONES, 'BRT') // -3
 * @example ownEntry(TIME_ZONES, 'constructor') // undefined
 */
export function ownEntry<T extends object>(table: T, key: string): T[keyof T] | undefined {
  return Object.hasOwn(table, key) ? table[key as keyof T] : undefined;
}
