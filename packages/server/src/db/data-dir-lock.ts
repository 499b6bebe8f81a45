import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * The embedded database (PGlite) is one process's files: a second process opening the same folder
 * keeps its own copy of the pages in memory and overwrites the first one's writes, so merchants it
 * creates vanish. Whoever opens the folder first creates `pglite.lock` in it, exclusively, naming its
 * process id and host; the file is removed when the database is closed.
 *
 * A lock left by a process that died (SIGKILL, power loss) is taken over when its process no longer
 * runs on this host. Liveness is checked by process id rather than by a time stamp the holder keeps
 * refreshing (as lock-file libraries do): PGlite's start compiles WebAssembly and migrates on the main
 * thread, which stalls the event loop for seconds on a busy machine, and a refresh missed then would
 * hand the folder to a second process. A lock from another host (a shared volume) cannot be checked
 * and is refused; the message names the file to remove once that host has stopped.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: string,
  ) {
    super(`The embedded database in ${dataDir} is in use by another Colibri process (${holder}).`);
    this.name = 'DataDirLockedError';
  }
}

interface LockRecord {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(file: string): LockRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as LockRecord;
    return typeof record.pid === 'number' && typeof record.host === 'string' ? record : undefined;
  } catch {
    // Missing, or half written by a process that died while writing it: nobody holds it.
    return undefined;
  }
}

/**
 * Takes the data directory's lock or throws DataDirLockedError; the returned function releases it.
 * @example const release = lockDataDir(dataDir); … release();
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'pglite.lock');
  const mine: LockRecord = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  // Two rounds: the second follows the removal of a stale lock, which another starting process may win.
  for (let round = 0; round < 2; round++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(mine)}\n`);
      } finally {
        closeSync(fd);
      }
      return () => {
        if (readRecord(file)?.pid === process.pid) unlinkSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readRecord(file);
    if (holder && holder.host !== mine.host) {
      throw new DataDirLockedError(dataDir, `process ${holder.pid} on host ${holder.host} since ${holder.since}; remove ${file} once it has stopped`);
    }
    // The same process id as ours is a previous run of a container, whose first process is always 1.
    if (holder && holder.pid !== process.pid && isRunning(holder.pid)) {
      throw new DataDirLockedError(dataDir, `process ${holder.pid} since ${holder.since}`);
    }
    try {
      unlinkSync(file);
    } catch {
      // Another process removed the stale lock first; the next round tells who holds it now.
    }
  }
  throw new DataDirLockedError(dataDir, 'another process took it while this one started');
}
