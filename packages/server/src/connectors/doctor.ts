import { accessSync, constants } from 'node:fs';
import { ConfigError, type Config } from '../config';
import type { DoctorCheck } from './connector';
import { METHODS, planConnectors } from './plan';

/**
 * `colibri doctor`: checks the configured connectors without starting the service or opening the
 * database. Every route is listed; each connector's file settings (certificates, keys) must be
 * readable, and its own checks run (settings that parse, endpoints that answer). In live mode the
 * methods without a connector are listed as refused per request. Returns whether everything passed.
 * @example const ok = await runDoctor(loadConfig(), (line) => console.log(line));
 */
export async function runDoctor(config: Config, write: (line: string) => void): Promise<boolean> {
  const checks: DoctorCheck[] = [];
  let plan;
  try {
    plan = planConnectors(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    write(`FAIL configuration: ${error.message}`);
    return false;
  }
  write(`mode: ${config.mode}`);
  for (const method of METHODS) {
    const route = plan.routes.get(method);
    write(`  ${method.padEnd(10)} ${route ? `→ ${route.definition.id}` : '→ (none: refused per request)'}`);
  }
  if (config.mode === 'live' && !config.masterKey) checks.push({ name: 'master key', ok: false, detail: 'COLIBRI_MASTER_KEY is required in live mode' });
  const seen = new Set<string>();
  for (const route of plan.routes.values()) {
    if (seen.has(route.definition.id)) continue;
    seen.add(route.definition.id);
    for (const setting of route.definition.settings) {
      const value = route.settings[setting.key];
      if (setting.required) checks.push({ name: `${route.definition.id}: ${setting.env}`, ok: Boolean(value), detail: value ? (setting.secret ? 'set' : value) : 'missing' });
      // A file setting may hold the PEM text itself rather than a path.
      if (setting.file && value && !value.trimStart().startsWith('-----BEGIN')) {
        let readable = true;
        try {
          accessSync(value, constants.R_OK);
        } catch {
          readable = false;
        }
        checks.push({ name: `${route.definition.id}: ${setting.env} readable`, ok: readable, detail: value });
      }
    }
    try {
      checks.push(...((await route.definition.doctor?.(route.settings)) ?? []));
    } catch (error) {
      checks.push({ name: `${route.definition.id}: settings`, ok: false, detail: (error as Error).message });
    }
  }
  for (const check of checks) write(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  const ok = checks.every((check) => check.ok);
  write(ok ? 'all checks passed' : 'some checks failed');
  return ok;
}
