import { SandboxSimulator } from '../processor/sandbox-simulator';
import type { ConnectorDefinition } from './connector';

/**
 * The sandbox simulator as a connector: it serves every method, needs no settings, and exists in
 * sandbox mode only (its constructor refuses live mode).
 */
export const sandboxConnector: ConnectorDefinition = {
  id: 'sandbox',
  title: 'Sandbox simulator',
  methods: ['CREDITCARD', 'DEBITCARD', 'PIX', 'BOLETO', 'OXXO', 'PAYNET', 'SPEI', 'PICPAY', 'PAYOUT'],
  sandboxOnly: true,
  settings: [],
  create: (_settings, deps) => new SandboxSimulator(deps.db, deps.config.sandboxDelayMs, deps.config),
};
