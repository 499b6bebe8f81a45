import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** How Colibri is configured: parsed and validated once from the environment, then passed around. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** PostgreSQL connection string; when absent Colibri runs on embedded PGlite in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /**
   * `DATABASE_READ_URL`: a PostgreSQL replica for reads that tolerate staleness (report exports, the
   * dashboard's charts and lists, the callback event list; docs/scaling.md). Needs DATABASE_URL.
   */
  readonly databaseReadUrl: string | undefined;
  /** Connection bounds and the replica's lag bound (docs/configuration.md, "Database connections"). */
  readonly database: DatabaseSettings;
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
  /** `json`: one JSON object per line on stdout (for collectors); `pretty`: coloured lines for people. */
  readonly logFormat: 'json' | 'pretty';
  /**
   * `PUBLIC_BASE_URL` without a trailing slash: the base of every absolute URL the service produces
   * (checkout_url). Absent, those URLs are built from the request's protocol and Host header.
   */
  readonly publicBaseUrl: string | undefined;
  /**
   * Fastify's `trustProxy` (COLIBRI_TRUST_PROXY): which proxies' X-Forwarded-For, -Proto and -Host are
   * believed, so that request.ip and request.protocol are the client's behind a load balancer. false
   * (the default) believes none: a client could otherwise choose its own address for rate limits.
   */
  readonly trustProxy: boolean | number | string[];
  /** How long SIGTERM waits for requests and jobs in flight before the process exits anyway. */
  readonly shutdownTimeoutMs: number;
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
  /**
   * The connector layer's settings (docs/connectors.md): every `COLIBRI_*` variable, read by the
   * connectors that name them; `COLIBRI_ROUTING` and `COLIBRI_LIVE_METHODS` among them. Parsed and
   * checked at start by connectors/plan.ts.
   */
  readonly connectorEnv: Readonly<Record<string, string>>;
}

export interface DatabaseSettings {
  /** `statement_timeout` of each connection (COLIBRI_DB_STATEMENT_TIMEOUT_MS); 0 leaves the server's. */
  readonly statementTimeoutMs: number;
  /** `idle_in_transaction_session_timeout` of each connection; 0 leaves the server's. */
  readonly idleInTransactionTimeoutMs: number;
  /** A replica further behind the primary than this serves no reads until it catches up; 0 never checks. */
  readonly readMaxLagSeconds: number;
}

export interface WorkSettings {
  /** Jobs one process keeps in flight at once. */
  readonly concurrency: number;
  /** A job's claim lasts this long unless renewed; work of a crashed process resumes after it. */
  readonly leaseMs: number;
  /** The shortest time between two claims of jobs: under load, the jobs enqueued meanwhile are claimed, run and settled together. */
  readonly claimIntervalMs: number;
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
  /** Card attempts of the hosted checkout page (`POST /pay/<id>/card`, `…/debit`, `…/debit/complete`) per minute from one address. */
  readonly payCardAttemptsPerAddressPerMinute: number;
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
  /** Days an event is kept, with its deliveries and attempts, once its callbacks are settled; 0 keeps every event (webhooks/retention.ts). */
  readonly retentionDays: number;
}

/** The contract's promise: callbacks are retried for at least 72 hours. */
const CALLBACK_RETRY_WINDOW_MS = 72 * 3_600_000;

/** The configuration is invalid; `problems` has one line per problem, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** Reads variables and records every problem, so one start reports them all rather than the first. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  string(name: string): string | undefined {
    return this.env[name] || undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) return this.problem(`${name} must be an integer, got ${JSON.stringify(raw)}`, fallback);
    const value = Number(raw);
    if (value < min || value > max) return this.problem(`${name} must be between ${min} and ${max}, got ${value}`, fallback);
    return value;
  }

  /**
   * A secret from `NAME` or from the file named by `NAME_FILE` (container secrets are mounted as files,
   * which keeps them out of the process environment and `docker inspect`). Trailing newlines are dropped.
   */
  secret(name: string): string | undefined {
    const inline = this.string(name);
    const file = this.string(`${name}_FILE`);
    if (inline !== undefined && file !== undefined) return this.problem(`${name} and ${name}_FILE are both set; set only one`, undefined);
    if (file === undefined) return inline;
    try {
      const value = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
      return value === '' ? this.problem(`${name}_FILE names an empty file: ${file}`, undefined) : value;
    } catch (error) {
      return this.problem(`${name}_FILE cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)} ${file}`, undefined);
    }
  }

  problem<T>(line: string, fallback: T): T {
    this.problems.push(line);
    return fallback;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parsePublicBaseUrl(read: EnvReader): string | undefined {
  const raw = read.string('PUBLIC_BASE_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return read.problem(`PUBLIC_BASE_URL must be an absolute http:// or https:// URL, got ${JSON.stringify(raw)}`, undefined);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return read.problem(`PUBLIC_BASE_URL must use http or https, got ${url.protocol}`, undefined);
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return read.problem('PUBLIC_BASE_URL must not carry a query, a fragment or credentials', undefined);
  }
  return url.href.replace(/\/+$/, '');
}

/** `true`/`false`, a number of proxy hops, or a comma-separated list of addresses and CIDR ranges. */
function parseTrustProxy(read: EnvReader): boolean | number | string[] {
  const raw = read.string('COLIBRI_TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const bad = entries.filter((e) => !/^[\d.]+(\/\d{1,2})?$|^[\da-f:]+(\/\d{1,3})?$/i.test(e) && !['loopback', 'linklocal', 'uniquelocal'].includes(e));
  if (entries.length === 0 || bad.length > 0) {
    return read.problem(`COLIBRI_TRUST_PROXY must be true, false, a hop count or addresses/CIDR ranges, got ${JSON.stringify(bad.join(',') || raw)}`, false);
  }
  return entries;
}

/**
 * Reads the configuration from environment variables (see docs/configuration.md). Every problem is
 * collected and thrown together in one ConfigError, one line each.
 * @example
 * const config = loadConfig(process.env);
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = new EnvReader(env);
  const rawMode = env.COLIBRI_MODE ?? 'sandbox';
  const mode = rawMode === 'sandbox' || rawMode === 'live' ? rawMode : read.problem(`COLIBRI_MODE must be sandbox or live, got ${JSON.stringify(rawMode)}`, 'sandbox' as const);
  let databaseUrl = read.secret('DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    databaseUrl = read.problem('DATABASE_URL must be a postgres:// or postgresql:// URL', undefined);
  }
  let databaseReadUrl = read.secret('DATABASE_READ_URL');
  if (databaseReadUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    databaseReadUrl = read.problem('DATABASE_READ_URL must be a postgres:// or postgresql:// URL', undefined);
  } else if (databaseReadUrl !== undefined && databaseUrl === undefined && read.string('DATABASE_URL') === undefined && read.string('DATABASE_URL_FILE') === undefined) {
    databaseReadUrl = read.problem('DATABASE_READ_URL needs DATABASE_URL: the embedded database has no replica', undefined);
  }
  const masterKey = read.secret('COLIBRI_MASTER_KEY');
  if (mode === 'live' && masterKey === undefined && !env.COLIBRI_MASTER_KEY_FILE) read.problem('COLIBRI_MASTER_KEY (or COLIBRI_MASTER_KEY_FILE) is required in live mode', undefined);
  // A shorter retry window exists for tests; live merchants are promised 72 hours.
  const retryWindowMs = read.integer('COLIBRI_CALLBACK_RETRY_WINDOW_MS', CALLBACK_RETRY_WINDOW_MS, 1, 30 * 86_400_000);
  if (mode === 'live' && retryWindowMs < CALLBACK_RETRY_WINDOW_MS) read.problem('COLIBRI_CALLBACK_RETRY_WINDOW_MS must be at least 259200000 (72 hours) in live mode', undefined);
  const logLevel = read.string('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) read.problem(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`, undefined);
  const logFormat = read.string('LOG_FORMAT') ?? 'json';
  if (logFormat !== 'json' && logFormat !== 'pretty') read.problem(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(logFormat)}`, undefined);
  const config: Config = {
    host: env.HOST || '127.0.0.1',
    port: read.integer('PORT', 8080, 0, 65535),
    databaseUrl,
    databaseReadUrl,
    database: {
      statementTimeoutMs: read.integer('COLIBRI_DB_STATEMENT_TIMEOUT_MS', 0, 0, 86_400_000),
      idleInTransactionTimeoutMs: read.integer('COLIBRI_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, 0, 86_400_000),
      readMaxLagSeconds: read.integer('COLIBRI_DB_READ_MAX_LAG_SECONDS', 30, 0, 86_400),
    },
    dataDir: resolve(env.COLIBRI_DATA_DIR || './data'),
    mode,
    adminToken: read.secret('COLIBRI_ADMIN_TOKEN'),
    callbackAllowHosts: (env.COLIBRI_CALLBACK_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
    callbacks: {
      timeoutMs: read.integer('COLIBRI_CALLBACK_TIMEOUT_MS', 15_000, 100, 15_000),
      retryBaseMs: read.integer('COLIBRI_CALLBACK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
      retryWindowMs,
      concurrency: read.integer('COLIBRI_CALLBACK_CONCURRENCY', 128, 1, 1_000),
      retentionDays: read.integer('COLIBRI_EVENT_RETENTION_DAYS', 90, 0, 36_500),
    },
    sandboxDelayMs: read.integer('COLIBRI_SANDBOX_DELAY_MS', 200, 0, 60_000),
    masterKey,
    logLevel,
    logFormat: logFormat === 'pretty' ? 'pretty' : 'json',
    publicBaseUrl: parsePublicBaseUrl(read),
    trustProxy: parseTrustProxy(read),
    shutdownTimeoutMs: read.integer('COLIBRI_SHUTDOWN_TIMEOUT_MS', 25_000, 0, 600_000),
    bodyLimitBytes: read.integer('COLIBRI_BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    runWorkers: (env.COLIBRI_WORKERS ?? 'on') !== 'off',
    sweepScale: read.integer('COLIBRI_SWEEP_PERCENT', 100, 1, 10_000) / 100,
    databaseWaitMs: read.integer('COLIBRI_DB_WAIT_MS', 60_000, 0, 3_600_000),
    work: {
      concurrency: read.integer('COLIBRI_WORKER_CONCURRENCY', 5000, 1, 100_000),
      leaseMs: read.integer('COLIBRI_JOB_LEASE_MS', 10_000, 100, 600_000),
      claimIntervalMs: read.integer('COLIBRI_CLAIM_INTERVAL_MS', 100, 0, 10_000),
      deadlineMs: read.integer('COLIBRI_RETRY_DEADLINE_MS', 30 * 60_000, 1, 30 * 86_400_000),
      idempotencyLeaseMs: read.integer('COLIBRI_IDEMPOTENCY_LEASE_MS', 5_000, 100, 600_000),
      stopTimeoutMs: read.integer('COLIBRI_STOP_TIMEOUT_MS', 10_000, 0, 600_000),
    },
    limits: {
      authFailuresPerKeyAndAddress: read.integer('COLIBRI_AUTH_FAILURES_PER_KEY_AND_ADDRESS', 10, 1, 1_000_000),
      authFailuresPerAddress: read.integer('COLIBRI_AUTH_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
      authFailureWindowSeconds: read.integer('COLIBRI_AUTH_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
      authSuccessesPerKeyPerMinute: read.integer('COLIBRI_AUTH_SUCCESSES_PER_KEY', 6_000, 1, 10_000_000),
      payCardAttemptsPerAddressPerMinute: read.integer('COLIBRI_PAY_CARD_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
      threeDsPerAddressPerMinute: read.integer('COLIBRI_3DS_LIMIT_PER_ADDRESS', 30, 1, 1_000_000),
      threeDsPerContractPerMinute: read.integer('COLIBRI_3DS_LIMIT_PER_CONTRACT', 600, 1, 10_000_000),
    },
    tokenSigningKeys: env.COLIBRI_TOKEN_SIGNING_KEYS || undefined,
    apiSecretGraceSeconds: read.integer('COLIBRI_API_SECRET_GRACE_SECONDS', 86_400, 0, 30 * 86_400),
    connectorEnv: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith('COLIBRI_') && typeof entry[1] === 'string' && entry[1] !== ''),
    ),
  };
  // The whole drain must leave the background its own bound, or a stop would be cut short before it
  // released its claims.
  if (config.shutdownTimeoutMs < config.work.stopTimeoutMs) {
    read.problem(`COLIBRI_SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs}) must be at least COLIBRI_STOP_TIMEOUT_MS (${config.work.stopTimeoutMs})`, undefined);
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** Creates the data directory (for PGlite, generated keys and the admin token) if needed. */
export function ensureDataDir(config: Config): string {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return config.dataDir;
}
