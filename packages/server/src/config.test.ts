import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('reports every problem at once, one line each, naming its variable', () => {
    const problems = problemsOf({ PORT: 'eighty', COLIBRI_MODE: 'prod', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'pay.example.com', COLIBRI_TRUST_PROXY: 'everyone' });
    expect(problems).toHaveLength(6);
    for (const name of ['PORT', 'COLIBRI_MODE', 'DATABASE_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'COLIBRI_TRUST_PROXY']) {
      expect(problems.filter((p) => p.startsWith(`${name} `)), name).toHaveLength(1);
    }
    for (const p of problems) expect(p).not.toContain('\n');
  });

  it('reads secrets from *_FILE, without the trailing newline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'colibri-config-'));
    writeFileSync(join(dir, 'token'), 'adm_from_file\n');
    writeFileSync(join(dir, 'url'), 'postgres://u:p@db:5432/colibri\n');
    const config = loadConfig({ COLIBRI_ADMIN_TOKEN_FILE: join(dir, 'token'), DATABASE_URL_FILE: join(dir, 'url') });
    expect(config.adminToken).toBe('adm_from_file');
    expect(config.databaseUrl).toBe('postgres://u:p@db:5432/colibri');
  });

  it('refuses a secret set twice, an unreadable file and an empty one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'colibri-config-'));
    writeFileSync(join(dir, 'empty'), '\n');
    const problems = problemsOf({
      COLIBRI_ADMIN_TOKEN: 'a',
      COLIBRI_ADMIN_TOKEN_FILE: join(dir, 'empty'),
      COLIBRI_MASTER_KEY_FILE: join(dir, 'missing'),
      DATABASE_URL_FILE: join(dir, 'empty'),
    });
    expect(problems).toEqual([
      expect.stringMatching(/^DATABASE_URL_FILE names an empty file/),
      expect.stringMatching(/^COLIBRI_MASTER_KEY_FILE cannot be read: ENOENT/),
      'COLIBRI_ADMIN_TOKEN and COLIBRI_ADMIN_TOKEN_FILE are both set; set only one',
    ]);
  });

  it('requires the master key in live mode, inline or from a file', () => {
    expect(problemsOf({ COLIBRI_MODE: 'live' })).toEqual(['COLIBRI_MASTER_KEY (or COLIBRI_MASTER_KEY_FILE) is required in live mode']);
  });

  it('normalises PUBLIC_BASE_URL and refuses queries and other schemes', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl).toBe('https://pay.example.com');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://example.com/colibri//' }).publicBaseUrl).toBe('https://example.com/colibri');
    expect(loadConfig({}).publicBaseUrl).toBeUndefined();
    expect(problemsOf({ PUBLIC_BASE_URL: 'https://pay.example.com/?a=1' })).toHaveLength(1);
    expect(problemsOf({ PUBLIC_BASE_URL: 'ftp://pay.example.com' })).toHaveLength(1);
  });

  it('keeps settled events 90 days unless COLIBRI_EVENT_RETENTION_DAYS says otherwise; 0 keeps them all', () => {
    expect(loadConfig({}).callbacks.retentionDays).toBe(90);
    expect(loadConfig({ COLIBRI_EVENT_RETENTION_DAYS: '0' }).callbacks.retentionDays).toBe(0);
    expect(loadConfig({ COLIBRI_EVENT_RETENTION_DAYS: '400' }).callbacks.retentionDays).toBe(400);
    for (const value of ['-1', 'forever', '1.5']) expect(problemsOf({ COLIBRI_EVENT_RETENTION_DAYS: value }), value).toEqual([expect.stringMatching(/^COLIBRI_EVENT_RETENTION_DAYS /)]);
  });

  it('parses COLIBRI_TRUST_PROXY as a switch, a hop count or a list of addresses', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ COLIBRI_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ COLIBRI_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ COLIBRI_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });
});
