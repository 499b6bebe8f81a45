import type { Config } from '../config';

/**
 * Live mode never simulates: parts that make up outcomes (the processor simulator, the sandbox
 * controls) call this when they are built, so a wiring mistake fails at start instead of letting a
 * simulator decide a real payment.
 * @example assertSandboxOnly(config, 'the sandbox processor simulator');
 */
export function assertSandboxOnly(config: Pick<Config, 'mode'>, part: string): void {
  if (config.mode !== 'sandbox') throw new Error(`${part} exists only in sandbox mode and refuses to load in ${config.mode} mode`);
}
