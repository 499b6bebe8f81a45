import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { serialize } from 'pg-protocol';
import { statementName } from './prepared-statements';

/** A statement prepared on the PGlite instance (under its statementName): its parameters' types and its columns. */
interface Prepared {
  parameterTypes: number[];
  columns: { name: string; type: number }[];
}

/** The backend messages read here, as PGlite's protocol parser gives them. */
type Message =
  | { name: 'parameterDescription'; dataTypeIDs: number[] }
  | { name: 'rowDescription'; fields: { name: string; dataTypeID: number }[] }
  | { name: 'dataRow'; fields: (string | null)[] }
  | { name: 'commandComplete'; text: string }
  | { name: string };

const SYNC = serialize.sync();
/** PostgreSQL's "cached plan must not change result type": a prepared statement outlived a schema change. */
const FEATURE_NOT_SUPPORTED = '0A000';
const AFFECTING = /^(INSERT \d+|UPDATE|DELETE|MERGE|COPY) (\d+)$/;

/**
 * Kysely over PGlite, with the statements it runs again and again prepared once, like
 * `db/prepared-statements.ts` does on PostgreSQL.
 *
 * PGlite's own `query()` parses, describes and plans a statement on every call, in six calls into its
 * WebAssembly PostgreSQL; the embedded engine runs in the service's own thread, so that work is the
 * service's. Here a statement that has run before (the same rule as on PostgreSQL:
 * `statementName`) is parsed and described once under a name, then each run is one call: Bind,
 * Execute and Sync together. Values are serialised and rows parsed with PGlite's own serialisers and
 * parsers, as its `query()` does. Statements without parameters (transaction control, DDL) take
 * PGlite's `query()`.
 *
 * Written here because the PGlite dialect for Kysely offers no prepared statements and PGlite's API
 * has none either; it replaces that dialect (a page of code) rather than wrapping it.
 * @example const db = new Kysely<Database>({ dialect: new PreparingPGliteDialect(pglite) });
 */
export class PreparingPGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

/** One connection, lent to one caller at a time: PGlite is a single session. */
class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private lent = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.lent) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.lent = true;
    return this.connection;
  }
  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    if (next) next();
    else this.lent = false;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async destroy(): Promise<void> {
    await this.pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  private readonly prepared = new Map<string, Prepared>();

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const name = query.parameters.length > 0 ? statementName(query.sql) : undefined;
    if (name === undefined) {
      const result = await this.pglite.query<R>(query.sql, [...query.parameters]);
      return { rows: result.rows, ...(result.affectedRows ? { numAffectedRows: BigInt(result.affectedRows) } : {}) };
    }
    try {
      return await this.pglite.runExclusive(() => this.run<R>(name, query));
    } catch (error) {
      // The schema changed under a prepared statement (a migration, a test's DDL): prepare it again.
      if ((error as { code?: string }).code !== FEATURE_NOT_SUPPORTED || !this.prepared.has(query.sql)) throw error;
      this.prepared.delete(query.sql);
      await this.pglite.runExclusive(() => this.exchange(serialize.close({ type: 'S', name })));
      return await this.pglite.runExclusive(() => this.run<R>(name, query));
    }
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(query);
    for (let at = 0; at < rows.length; at += chunkSize) yield { rows: rows.slice(at, at + chunkSize) };
  }

  private async run<R>(name: string, query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.prepared.get(query.sql) ?? (await this.prepare(name, query.sql));
    const values = query.parameters.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = this.pglite.serializers[statement.parameterTypes[index] ?? 0];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await this.exchange(serialize.bind({ statement: name, values }), serialize.execute({}));
    const parsers = statement.columns.map((column) => this.pglite.parsers[column.type]);
    const rows: R[] = [];
    let numAffectedRows: bigint | undefined;
    for (const message of messages) {
      if (message.name === 'dataRow') {
        const { fields } = message as Extract<Message, { name: 'dataRow' }>;
        const row: Record<string, unknown> = {};
        statement.columns.forEach((column, index) => {
          const text = fields[index] ?? null;
          const parse = parsers[index];
          row[column.name] = text === null || !parse ? text : parse(text, column.type);
        });
        rows.push(row as R);
      } else if (message.name === 'commandComplete') {
        const affected = AFFECTING.exec((message as Extract<Message, { name: 'commandComplete' }>).text);
        if (affected) numAffectedRows = BigInt(affected[2] as string);
      }
    }
    if (!this.pglite.isInTransaction()) await this.pglite.syncToFs();
    return { rows, ...(numAffectedRows ? { numAffectedRows } : {}) };
  }

  private async prepare(name: string, text: string): Promise<Prepared> {
    const messages = await this.exchange(serialize.parse({ name, text }), serialize.describe({ type: 'S', name }));
    const parameters = messages.find((m) => m.name === 'parameterDescription') as Extract<Message, { name: 'parameterDescription' }> | undefined;
    const row = messages.find((m) => m.name === 'rowDescription') as Extract<Message, { name: 'rowDescription' }> | undefined;
    const statement: Prepared = {
      parameterTypes: parameters?.dataTypeIDs ?? [],
      columns: (row?.fields ?? []).map((field) => ({ name: field.name, type: field.dataTypeID })),
    };
    this.prepared.set(text, statement);
    return statement;
  }

  /** Sends protocol messages and a Sync in one call; PGlite throws the first error after the Sync is read. */
  private async exchange(...messages: Buffer[]): Promise<Message[]> {
    return (await this.pglite.execProtocolStream(Buffer.concat([...messages, SYNC]), { syncToFs: false })) as Message[];
  }
}
