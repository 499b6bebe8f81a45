import { ConfigError, type Config } from '../config';
import type { PaymentMethodName } from '../processor/processor';
import { adyenConnector } from './adyen/adyen-connector';
import { boletoBankConnector } from './boleto/boleto-connector';
import { dlocalConnector } from './dlocal/dlocal-connector';
import type { ConnectorDefinition, ConnectorSettings } from './connector';
import { pixConnector } from './pix/pix-connector';
import { sandboxConnector } from './sandbox-connector';

/** Every connector Colibri has, in the order the default routing prefers them. */
export const CONNECTORS: readonly ConnectorDefinition[] = [adyenConnector, pixConnector, boletoBankConnector, dlocalConnector, sandboxConnector];

export const METHODS: readonly PaymentMethodName[] = ['CREDITCARD', 'DEBITCARD', 'PIX', 'BOLETO', 'OXXO', 'PAYNET', 'SPEI', 'PICPAY', 'PAYOUT'];

/** The methods live mode must serve to start, unless COLIBRI_LIVE_METHODS says otherwise. */
export const DEFAULT_LIVE_METHODS: readonly PaymentMethodName[] = ['CREDITCARD', 'DEBITCARD'];

export interface Route {
  readonly definition: ConnectorDefinition;
  readonly settings: ConnectorSettings;
}

/** Which connector serves each method for the whole instance (merchants may override per method). */
export interface ConnectorPlan {
  readonly mode: Config['mode'];
  readonly routes: ReadonlyMap<PaymentMethodName, Route>;
  readonly liveMethods: readonly PaymentMethodName[];
}

export function findConnector(id: string): ConnectorDefinition | undefined {
  return CONNECTORS.find((definition) => definition.id === id);
}

/** A connector's settings from the environment, by credential key. */
export function settingsFromEnv(definition: ConnectorDefinition, env: Readonly<Record<string, string>>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const setting of definition.settings) {
    const value = env[setting.env];
    if (value !== undefined && value !== '') settings[setting.key] = value;
  }
  return settings;
}

/** The environment names of the settings a connector still lacks (required, or required by the others). */
export function missingSettings(definition: ConnectorDefinition, settings: ConnectorSettings): string[] {
  const missing = definition.settings.filter((s) => s.required && !settings[s.key]).map((s) => s.env);
  return [...missing, ...(definition.missingConditional?.(settings) ?? [])];
}

function parseMethod(raw: string, variable: string): PaymentMethodName {
  const method = raw.trim().toUpperCase() as PaymentMethodName;
  if (!METHODS.includes(method)) throw new ConfigError([`${variable}: ${JSON.stringify(raw)} is not a method (${METHODS.join(', ')})`]);
  return method;
}

/**
 * Plans the instance's routing from the configuration, and refuses what cannot run:
 * - `COLIBRI_ROUTING` (`CREDITCARD=adyen,DEBITCARD=adyen`) names a connector per method; a method it
 *   does not name goes to the simulator in sandbox mode, and in live mode to the first connector that
 *   serves it and has all its settings;
 * - live mode never routes to a sandbox-only connector, and refuses to start unless every method of
 *   `COLIBRI_LIVE_METHODS` (default CREDITCARD,DEBITCARD) has a connector with all its settings; the
 *   message names each missing setting;
 * - a connector named explicitly must have all its settings, in either mode.
 * @example const plan = planConnectors(loadConfig());
 */
export function planConnectors(config: Pick<Config, 'mode' | 'connectorEnv'>): ConnectorPlan {
  const env = config.connectorEnv;
  const explicit = new Map<PaymentMethodName, ConnectorDefinition>();
  for (const entry of (env.COLIBRI_ROUTING ?? '').split(',').filter((e) => e.trim() !== '')) {
    const [rawMethod, rawConnector, ...rest] = entry.split('=');
    if (rawConnector === undefined || rest.length > 0) throw new ConfigError([`COLIBRI_ROUTING: ${JSON.stringify(entry)} is not METHOD=connector`]);
    const method = parseMethod(rawMethod ?? '', 'COLIBRI_ROUTING');
    const definition = findConnector(rawConnector.trim());
    if (!definition) throw new ConfigError([`COLIBRI_ROUTING: ${JSON.stringify(rawConnector)} is not a connector (${CONNECTORS.map((c) => c.id).join(', ')})`]);
    if (!definition.methods.includes(method)) throw new ConfigError([`COLIBRI_ROUTING: connector ${definition.id} does not serve ${method}`]);
    if (definition.sandboxOnly && config.mode !== 'sandbox') {
      throw new ConfigError([`COLIBRI_ROUTING: connector ${definition.id} exists only in sandbox mode; live mode never simulates`]);
    }
    explicit.set(method, definition);
  }
  const liveMethods = env.COLIBRI_LIVE_METHODS !== undefined
    ? env.COLIBRI_LIVE_METHODS.split(',').filter((m) => m.trim() !== '').map((m) => parseMethod(m, 'COLIBRI_LIVE_METHODS'))
    : DEFAULT_LIVE_METHODS;

  const routes = new Map<PaymentMethodName, Route>();
  const problems: string[] = [];
  for (const method of METHODS) {
    const chosen = explicit.get(method);
    if (chosen) {
      const settings = settingsFromEnv(chosen, env);
      const missing = missingSettings(chosen, settings);
      if (missing.length > 0) problems.push(`${method}: set ${missing.join(', ')} (connector ${chosen.id}, chosen by COLIBRI_ROUTING)`);
      else routes.set(method, { definition: chosen, settings });
      continue;
    }
    if (config.mode === 'sandbox') {
      routes.set(method, { definition: sandboxConnector, settings: {} });
      continue;
    }
    const candidates = CONNECTORS.filter((c) => !c.sandboxOnly && c.methods.includes(method));
    const ready = candidates.find((c) => missingSettings(c, settingsFromEnv(c, env)).length === 0);
    if (ready) {
      routes.set(method, { definition: ready, settings: settingsFromEnv(ready, env) });
      continue;
    }
    if (!liveMethods.includes(method)) continue;
    if (candidates.length === 0) {
      problems.push(`${method}: no connector serves ${method} yet; remove it from COLIBRI_LIVE_METHODS`);
    } else {
      const options = candidates.map((c) => `${missingSettings(c, settingsFromEnv(c, env)).join(', ')} (connector ${c.id})`);
      problems.push(`${method}: set ${options.join(' or ')}`);
    }
  }
  if (problems.length > 0) {
    const scope = config.mode === 'live' ? `live mode needs a configured connector for each enabled method (COLIBRI_LIVE_METHODS=${liveMethods.join(',')})` : 'a connector named in COLIBRI_ROUTING lacks settings';
    throw new ConfigError([`Colibri cannot start: ${scope}:\n  ${problems.join('\n  ')}\nSee docs/connectors.md.`]);
  }
  return { mode: config.mode, routes, liveMethods };
}
