import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureDataDir, loadConfig, type Config } from '../config';
import { createSecretBox, keyIdOf, loadSecretBox, type SecretBox } from './secret-box';

const NUMBER = '4111111111111111';

/** The ciphertext with one bit of byte `index` flipped. */
function flipByte(ciphertext: string, index: number): string {
  const raw = Buffer.from(ciphertext, 'base64');
  raw[index] = (raw[index] ?? 0) ^ 0x01;
  return raw.toString('base64');
}

describe('createSecretBox', () => {
  it('round-trips a number under the current key, with a fresh nonce each time', () => {
    const cipher = createSecretBox(randomBytes(32));
    const first = cipher.encrypt(NUMBER);
    const second = cipher.encrypt(NUMBER);
    expect(first.keyId).toBe(cipher.currentKeyId);
    expect(first.ciphertext).not.toBe(second.ciphertext);
    expect(first.ciphertext).not.toContain(NUMBER);
    expect(Buffer.from(first.ciphertext, 'base64').toString('latin1')).not.toContain(NUMBER);
    expect(cipher.decrypt(first.keyId, first.ciphertext)).toBe(NUMBER);
    expect(cipher.decrypt(second.keyId, second.ciphertext)).toBe(NUMBER);
  });

  it('refuses a ciphertext with any byte flipped: nonce, tag or body', () => {
    const cipher = createSecretBox(randomBytes(32));
    const { keyId, ciphertext } = cipher.encrypt(NUMBER);
    const length = Buffer.from(ciphertext, 'base64').length;
    // 12 bytes of nonce, 16 of tag, then one byte per character of the number.
    expect(length).toBe(12 + 16 + NUMBER.length);
    for (let i = 0; i < length; i += 1) {
      expect(() => cipher.decrypt(keyId, flipByte(ciphertext, i)), `byte ${i}`).toThrow();
    }
  });

  it('refuses a key id it does not hold, and a ciphertext under another key', () => {
    const a = createSecretBox(randomBytes(32));
    const b = createSecretBox(randomBytes(32));
    const { keyId, ciphertext } = a.encrypt(NUMBER);
    expect(() => b.decrypt(keyId, ciphertext)).toThrow(/not configured/);
    expect(() => b.decrypt(b.currentKeyId, ciphertext)).toThrow();
  });

  it('rotates: a card stored under the old key still decrypts once a new key is current', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createSecretBox(oldKey);
    const stored = before.encrypt(NUMBER);

    const rotated = createSecretBox(newKey, [oldKey]);
    expect(rotated.currentKeyId).toBe(keyIdOf(newKey));
    expect(rotated.currentKeyId).not.toBe(stored.keyId);
    expect(rotated.decrypt(stored.keyId, stored.ciphertext)).toBe(NUMBER);
    // New records use the new key, which the old cipher cannot read.
    const fresh = rotated.encrypt('5555555555554444');
    expect(fresh.keyId).toBe(keyIdOf(newKey));
    expect(rotated.decrypt(fresh.keyId, fresh.ciphertext)).toBe('5555555555554444');
    expect(() => before.decrypt(fresh.keyId, fresh.ciphertext)).toThrow(/not configured/);
    // Without the old key among the previous ones, the old record is unreadable.
    expect(() => createSecretBox(newKey).decrypt(stored.keyId, stored.ciphertext)).toThrow(/not configured/);
  });

  it('names each key by its hash, so the same key always has the same id', () => {
    const key = randomBytes(32);
    expect(keyIdOf(key)).toMatch(/^[0-9a-f]{16}$/);
    expect(createSecretBox(key).currentKeyId).toBe(keyIdOf(Buffer.from(key)));
  });
});

/** The box of a configuration, as runtime.ts loads it. */
function load(config: Config): SecretBox {
  return loadSecretBox({ masterKey: config.masterKey, dataDir: () => ensureDataDir(config) });
}

describe('loadSecretBox', () => {
  const saved = process.env.COLIBRI_PREVIOUS_MASTER_KEYS;
  const dirs: string[] = [];
  afterEach(() => {
    if (saved === undefined) delete process.env.COLIBRI_PREVIOUS_MASTER_KEYS;
    else process.env.COLIBRI_PREVIOUS_MASTER_KEYS = saved;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'colibri-cipher-'));
    dirs.push(dir);
    return dir;
  }

  it('rotates through COLIBRI_MASTER_KEY and COLIBRI_PREVIOUS_MASTER_KEYS', () => {
    const [k1, k2, k3] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    delete process.env.COLIBRI_PREVIOUS_MASTER_KEYS;
    const first = load(loadConfig({ COLIBRI_DATA_DIR: dataDir(), COLIBRI_MASTER_KEY: k1.toString('base64') }));
    const underK1 = first.encrypt(NUMBER);

    process.env.COLIBRI_PREVIOUS_MASTER_KEYS = ` ${k2.toString('base64')} ,${k1.toString('base64')}`;
    const rotated = load(loadConfig({ COLIBRI_DATA_DIR: dataDir(), COLIBRI_MASTER_KEY: k3.toString('base64') }));
    expect(rotated.currentKeyId).toBe(keyIdOf(k3));
    expect(rotated.decrypt(underK1.keyId, underK1.ciphertext)).toBe(NUMBER);
    expect(rotated.encrypt(NUMBER).keyId).toBe(keyIdOf(k3));
  });

  it('refuses a key that is not 32 bytes of base64', () => {
    delete process.env.COLIBRI_PREVIOUS_MASTER_KEYS;
    expect(() => load(loadConfig({ COLIBRI_DATA_DIR: dataDir(), COLIBRI_MASTER_KEY: randomBytes(16).toString('base64') }))).toThrow(/32 bytes/);
    process.env.COLIBRI_PREVIOUS_MASTER_KEYS = 'c2hvcnQ=';
    expect(() => load(loadConfig({ COLIBRI_DATA_DIR: dataDir(), COLIBRI_MASTER_KEY: randomBytes(32).toString('base64') }))).toThrow(
      /COLIBRI_PREVIOUS_MASTER_KEYS/,
    );
  });

  it('in sandbox without a key, generates one into the data directory once and keeps it', () => {
    delete process.env.COLIBRI_PREVIOUS_MASTER_KEYS;
    const config = loadConfig({ COLIBRI_DATA_DIR: dataDir() });
    const first = load(config);
    const stored = first.encrypt(NUMBER);
    const key = Buffer.from(readFileSync(join(config.dataDir, 'master.key'), 'utf8').trim(), 'base64');
    expect(keyIdOf(key)).toBe(first.currentKeyId);
    expect(load(config).decrypt(stored.keyId, stored.ciphertext)).toBe(NUMBER);
  });
});
