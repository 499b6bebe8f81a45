import { expect, it } from 'vitest';
import { BoundedMap } from './bounded-map';

it('holds at most its limit: a new key past it empties the map first, a key it holds is only replaced', () => {
  const map = new BoundedMap<number, string>(3);
  for (const n of [1, 2, 3]) map.set(n, `v${n}`);
  map.set(3, 'again');
  expect([...map]).toEqual([[1, 'v1'], [2, 'v2'], [3, 'again']]);
  map.set(4, 'v4');
  expect([...map]).toEqual([[4, 'v4']]);
});
