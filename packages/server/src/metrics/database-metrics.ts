import { Counter, type Registry } from 'prom-client';
import { databaseRouting, type Db } from '../db/database';

/**
 * The connection pools' own counts (db/resilient-pool.ts, db/read-routing.ts), read at each scrape:
 * connections destroyed after a loss, statements run again on a fresh connection, and where the reads
 * that may use a replica were served. Nothing on PGlite, which has no pool.
 */
export function installDatabaseMetrics(registry: Registry, db: Db): void {
  const routing = databaseRouting(db);
  if (!routing) return;
  const registers = [registry];
  new Counter({
    name: 'colibri_db_connections_discarded_total',
    help: 'Pooled database connections destroyed because they were lost, failed validation after a failure, or reached a read-only node',
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset();
      this.inc({ pool: 'primary' }, routing.primary.counts.discarded);
      if (routing.replica) this.inc({ pool: 'replica' }, routing.replica.counts.discarded);
    },
  });
  new Counter({
    name: 'colibri_db_statements_retried_total',
    help: 'Statements with no effect (begin, select) run again on a fresh connection after theirs was found lost',
    registers,
    collect() {
      this.reset();
      this.inc(routing.retries.count + routing.readRetries.count);
    },
  });
  if (!routing.routing) return;
  const counts = routing.routing.counts;
  new Counter({
    name: 'colibri_db_replica_reads_total',
    help: 'Connections lent for reads that may use the replica (DATABASE_READ_URL), by the pool that served them',
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset();
      this.inc({ pool: 'replica' }, counts.served.replica);
      this.inc({ pool: 'primary' }, counts.served.primary);
    },
  });
  new Counter({
    name: 'colibri_db_replica_fallbacks_total',
    help: 'Reads meant for the replica served by the primary: the replica was unreachable, or further behind than COLIBRI_DB_READ_MAX_LAG_SECONDS',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      this.inc({ reason: 'unavailable' }, counts.fallbacks.unavailable);
      this.inc({ reason: 'lag' }, counts.fallbacks.lag);
    },
  });
}
