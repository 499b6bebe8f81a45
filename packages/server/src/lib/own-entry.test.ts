import { expect, it } from 'vitest';
import { ownEntry } from './own-entry';

it("finds a table's own entries, and nothing under a name every object inherits", () => {
  const table: Readonly<Record<string, number>> = { UTC: 0, BRT: -3 };
  expect(ownEntry(table, 'BRT')).toBe(-3);
  expect(ownEntry(table, 'UTC')).toBe(0);
  for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'XYZ', '']) expect(ownEntry(table, key), key).toBeUndefined();
  // An entry the table does hold under such a name is found.
  expect(ownEntry({ constructor: 'own' }, 'constructor')).toBe('own');
});
