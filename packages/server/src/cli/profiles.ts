import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ownEntry } from '../lib/own-entry';

/** What `colibri login` saves: where the service is and the merchant's credentials. */
export interface Profile {
  url: string;
  api_key: string;
  api_secret: string;
  /** The merchant's webhook secret, with which `colibri listen` signs what it forwards. */
  webhook_secret?: string;
}

interface ProfileFile {
  profiles: Record<string, Profile>;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/**
 * The profiles file: `$COLIBRI_CONFIG_DIR/profiles.json`, else `$XDG_CONFIG_HOME/colibri/profiles.json`,
 * else `~/.config/colibri/profiles.json`. It holds secrets, so it is readable by its owner only.
 */
export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.COLIBRI_CONFIG_DIR ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'colibri');
  return join(dir, 'profiles.json');
}

function readFile(env: NodeJS.ProcessEnv): ProfileFile {
  try {
    const parsed = JSON.parse(readFileSync(profilesPath(env), 'utf8')) as Partial<ProfileFile>;
    return { profiles: parsed.profiles ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new Error(`cannot read ${profilesPath(env)}: ${(error as Error).message}`, { cause: error });
  }
}

/** The profile saved under `name`; a name such as `constructor` or `__proto__` is a name like any other. */
export function readProfile(name: string, env: NodeJS.ProcessEnv = process.env): Profile | undefined {
  return ownEntry(readFile(env).profiles, name);
}

export function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  // A computed key defines its own property even for `__proto__`, where assigning would set the prototype.
  const file: ProfileFile = { profiles: { ...readFile(env).profiles, [name]: profile } };
  const path = profilesPath(env);
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Connection options every merchant command takes. */
export interface ConnectionOptions {
  url?: string;
  apiKey?: string;
  apiSecret?: string;
  profile?: string;
}

/**
 * Flags first, then environment variables, then the saved profile: a flag or variable given once
 * overrides the profile without changing it.
 */
export function resolveConnection(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Profile {
  const name = options.profile ?? env.COLIBRI_PROFILE ?? 'default';
  const saved = readProfile(name, env);
  const url = options.url ?? env.COLIBRI_URL ?? saved?.url ?? DEFAULT_URL;
  const apiKey = options.apiKey ?? env.COLIBRI_API_KEY ?? saved?.api_key;
  const apiSecret = options.apiSecret ?? env.COLIBRI_API_SECRET ?? saved?.api_secret;
  if (!apiKey || !apiSecret) {
    throw new Error(`no API key and secret: pass --api-key and --api-secret, set COLIBRI_API_KEY and COLIBRI_API_SECRET, or run colibri login (profile "${name}" in ${profilesPath(env)})`);
  }
  const webhookSecret = env.COLIBRI_WEBHOOK_SECRET ?? saved?.webhook_secret;
  return { url, api_key: apiKey, api_secret: apiSecret, ...(webhookSecret ? { webhook_secret: webhookSecret } : {}) };
}

/** The help text shared by every merchant command. */
export const CONNECTION_ENV_HELP = `
Connection (flags win over environment variables, which win over the saved profile):
  COLIBRI_URL          the service's base URL (default ${DEFAULT_URL})
  COLIBRI_API_KEY      the merchant's API key (ck_…)
  COLIBRI_API_SECRET   the merchant's API secret (cs_…)
  COLIBRI_PROFILE      the profile saved by colibri login (default "default")
  COLIBRI_CONFIG_DIR   where profiles.json is kept (default $XDG_CONFIG_HOME/colibri or ~/.config/colibri)`;
