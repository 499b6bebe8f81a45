import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProfile, resolveConnection, saveProfile } from './profiles';

describe('profiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'colibri-profiles-'));
  const env = { COLIBRI_CONFIG_DIR: dir };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const profile = (n: number) => ({ url: `http://127.0.0.1:${8080 + n}`, api_key: `ck_${n}`, api_secret: `cs_${n}` });

  it('has no profile under a name every object inherits until one is saved there, and then keeps it like any other', () => {
    saveProfile('default', profile(0), env);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(readProfile(name, env), name).toBeUndefined();
      expect(() => resolveConnection({ profile: name }, env), name).toThrow(/^no API key and secret/);
    }
    saveProfile('__proto__', profile(1), env);
    saveProfile('constructor', profile(2), env);
    expect(readProfile('__proto__', env)).toEqual(profile(1));
    expect(readProfile('constructor', env)).toEqual(profile(2));
    expect(resolveConnection({ profile: '__proto__' }, env)).toEqual(profile(1));
    expect(Object.keys(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles)).toEqual(['default', '__proto__', 'constructor']);
  });
});
