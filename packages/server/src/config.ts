import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** How Colibri is configured: parsed and validated once from the environment, then passed around. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** PostgreSQL connection string; when absent Colibri runs on embedded PGlite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly mode: 'sandbox' | 'live';
  /** Admin bearer token from `COLIBRI_ADMIN_TOKEN`; when absent one is generated into `dataDir`. */
  readonly adminToken: string | undefined;
  /** Hosts that callbacks may reach even though they resolve to loopback or private addresses. */
  readonly callbackAllowHosts: readonly string[];
  /** Callback delivery: timeout, retry schedule and concurrency (docs/callbacks.md). */
  readonly callbacks: CallbackSettings;
  /** Simulated processor latency in sandbox mode. */
  readonly sandboxDelayMs: number;
  /** 32-byte master key (base64) for card encryption; generated into `dataDir` in sandbox when absent. */
  readonly masterKey: string | undefined;
  readonly logLevel: string;
  /** Largest accepted request body. */
  readonly bodyLimitBytes: number;
  /** Whether the service process runs background workers (callbacks, schedulers) itself. */
  readonly runWorkers: boolean;
  /** Periodic sweeps (subscriptions, expiries) run at this fraction of their normal interval (1 = normal). */
  readonly sweepScale: number;
  /** How long a start waits for an unreachable database before it gives up. */
  readonly databaseWaitMs: number;
  /** Background work and crash recovery (docs/architecture.md, "Faults"). */
  readonly work: WorkSettings;
  /** Login and public-endpoint limits (docs/security.md, "Login limits"). */
  readonly limits: LimitSettings;
  /** `COLIBRI_TOKEN_SIGNING_KEYS` (`kid:base64`, comma-separated, first signs); absent: keys in the database. */
  readonly tokenSigningKeys: string | undefined;
  /** How long an API secret replaced by a rotation keeps working. */
  readonly apiSecretGraceSeconds: number;
}

export interface WorkSettings {
  /** Jobs one process keeps in flight at once. */
  readonly concurrency: number;
  /** A job's claim lasts this long unless renewed; work of a crashed process resumes after it. */
  readonly leaseMs: number;
  /** A step failing this long is given up (never sent) or reported as stuck (outcome unknown). */
  readonly deadlineMs: number;
  /** An Idempotency-Key's claim lasts this long unless renewed by its running request. */
  readonly idempotencyLeaseMs: number;
  /** How long a stop waits for work in flight before releasing its claims. */
  readonly stopTimeoutMs: number;
}

export interface LimitSettings {
  /** Failed `POST /auth` attempts allowed per API key and client address within the failure window. */
  readonly authFailuresPerKeyAndAddress: number;
  /** Failed `POST /auth` attempts allowed per client address, whatever the key, within the window. */
  readonly authFailuresPerAddress: number;
  readonly authFailureWindowSeconds: number;
  /** Successful `POST /auth` calls allowed per API key and minute: a ceiling against runaway clients. */
  readonly authSuccessesPerKeyPerMinute: number;
  /** `POST /3ds/authentications` calls allowed per minute from one address, and for one contract. */
  readonly threeDsPerAddressPerMinute: number;
  readonly threeDsPerContractPerMinute: number;
}

export interface CallbackSettings {
  /** One attempt's limit: connect, send, answer and body. */
  readonly timeoutMs: number;
  /** The first retry's delay; each further retry doubles it, up to one hour. */
  readonly retryBaseMs: number;
  /** How long a failing callback is retried before it is marked failed. */
  readonly retryWindowMs: number;
  /** Callbacks one worker process has in flight at once. */
  readonly concurrency: number;
}

/** The contract's promise: callbacks are retried for at least 72 hours. */
const CALLBACK_RETRY_WINDOW_MS = 72 * 3_600_000;

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/**
 * Reads the configuration from environment variables (see docs/configuration.md).
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.COLIBRI_MODE ?? 'sandbox';
  if (mode !== 'sandbox' && mode !== 'live') throw new ConfigError(`COLIBRI_MODE must be sandbox or live, got ${mode}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const masterKey = env.COLIBRI_MASTER_KEY || undefined;
  if (mode === 'live' && masterKey === undefined) throw new ConfigError('COLIBRI_MASTER_KEY is required in live mode');
  // A shorter retry window exists for tests; live merchants are promised 72 hours.
  const retryWindowMs = integer(env, 'COLIBRI_CALLBACK_RETRY_WINDOW_MS', CALLBACK_RETRY_WINDOW_MS, 1, 30 * 86_400_000);
  if (mode === 'live' && retryWindowMs < CALLBACK_RETRY_WINDOW_MS) throw new ConfigError('COLIBRI_CALLBACK_RETRY_WINDOW_MS must be at least 259200000 (72 hours) in live mode');
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    databaseUrl,
    dataDir: resolve(env.COLIBRI_DATA_DIR || './data'),
    mode,
    adminToken: env.COLIBRI_ADMIN_TOKEN || undefined,
    callbackAllowHosts: (env.COLIBRI_CALLBACK_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
    callbacks: {
      timeoutMs: integer(env, 'COLIBRI_CALLBACK_TIMEOUT_MS', 15_000, 100, 15_000),
      retryBaseMs: integer(env, 'COLIBRI_CALLBACK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
      retryWindowMs,
      concurrency: integer(env, 'COLIBRI_CALLBACK_CONCURRENCY', 128, 1, 1_000),
    },
    sandboxDelayMs: integer(env, 'COLIBRI_SANDBOX_DELAY_MS', 200, 0, 60_000),
    masterKey,
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: integer(env, 'COLIBRI_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    runWorkers: (env.COLIBRI_WORKERS ?? 'on') !== 'off',
    sweepScale: integer(env, 'COLIBRI_SWEEP_PERCENT', 100, 1, 10_000) / 100,
    databaseWaitMs: integer(env, 'COLIBRI_DB_WAIT_MS', 60_000, 0, 3_600_000),
    work: {
      concurrency: integer(env, 'COLIBRI_WORKER_CONCURRENCY', 1000, 1, 100_000),
      leaseMs: integer(env, 'COLIBRI_JOB_LEASE_MS', 10_000, 100, 600_000),
      deadlineMs: integer(env, 'COLIBRI_RETRY_DEADLINE_MS', 30 * 60_000, 1, 30 * 86_400_000),
      idempotencyLeaseMs: integer(env, 'COLIBRI_IDEMPOTENCY_LEASE_MS', 5_000, 100, 600_000),
      stopTimeoutMs: integer(env, 'COLIBRI_STOP_TIMEOUT_MS', 10_000, 0, 600_000),
    },
    limits: {
      authFailuresPerKeyAndAddress: integer(env, 'COLIBRI_AUTH_FAILURES_PER_KEY_AND_ADDRESS', 10, 1, 1_000_000),
      authFailuresPerAddress: integer(env, 'COLIBRI_AUTH_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
      authFailureWindowSeconds: integer(env, 'COLIBRI_AUTH_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
      authSuccessesPerKeyPerMinute: integer(env, 'COLIBRI_AUTH_SUCCESSES_PER_KEY', 6_000, 1, 10_000_000),
      threeDsPerAddressPerMinute: integer(env, 'COLIBRI_3DS_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
      threeDsPerContractPerMinute: integer(env, 'COLIBRI_3DS_LIMIT_PER_CONTRACT', 600, 1, 10_000_000),
    },
    tokenSigningKeys: env.COLIBRI_TOKEN_SIGNING_KEYS || undefined,
    apiSecretGraceSeconds: integer(env, 'COLIBRI_API_SECRET_GRACE_SECONDS', 86_400, 0, 30 * 86_400),
  };
}

/** Creates the data directory (for PGlite, generated keys and the admin token) if needed. */
export function ensureDataDir(config: Config): string {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return config.dataDir;
}
