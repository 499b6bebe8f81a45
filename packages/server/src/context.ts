import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { AccessList } from './auth/access-list';
import type { Principal, TokenService } from './auth/tokens';
import type { Config } from './config';
import type { ConnectorRouter } from './connectors/router';
import type { Db, Engine } from './db/database';
import type { WorkerSignal } from './jobs/worker-signal';
import type { Processor } from './processor/processor';
import type { SecretBox } from './lib/secret-box';

/** Everything a route or worker needs, built once at start (see main.ts) and passed down explicitly. */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  /**
   * For reads where staleness is harmless (report exports, the dashboard's charts and lists, the
   * callback event list): a replica when DATABASE_READ_URL is set, falling back to the primary;
   * otherwise `db` itself. Nothing that decides money or answers a status after a write reads it.
   */
  readonly readDb: Db;
  readonly engine: Engine;
  readonly tokens: TokenService;
  /** Disabled merchants and users, refreshed from the database within seconds (auth/access-list.ts). */
  readonly access: AccessList;
  /** The admin bearer token (from COLIBRI_ADMIN_TOKEN or generated into the data directory). */
  readonly adminToken: string;
  readonly version: string;
  /** The processor: the connector router, which hands each operation to its method's connector. */
  readonly processor: Processor;
  /** The same router, for what only it knows: which methods are served (`requireMethod`), its connectors. */
  readonly connectors: ConnectorRouter;
  readonly secretBox: SecretBox;
  /** Wakes this process's job workers after work was enqueued (nothing happens where none runs). */
  readonly workerSignal: WorkerSignal;
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Who may call a route: a merchant token (the default), the admin bearer token, or anyone. */
export type RouteAuth = 'merchant' | 'admin' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The report endpoints answer 401 with their own body (spec, Errors). */
    unauthorizedBody?: 'standard' | 'reports';
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The authenticated merchant of a request; routes with `auth: 'merchant'` always have one. */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw new Error('principalOf called on a route without merchant authentication');
  return request.principal;
}
