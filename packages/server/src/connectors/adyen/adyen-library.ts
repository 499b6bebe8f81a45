import { createRequire } from 'node:module';
import type * as Adyen from '@adyen/api-library';

type AdyenLibrary = typeof Adyen;

const requireFromHere = createRequire(import.meta.url);
let loaded: AdyenLibrary | undefined;

/**
 * Adyen's official library, loaded the first time an Adyen connector is made. Loading it reads some
 * 2,400 files (about a second of every process start on a 2-core machine), which an instance
 * that routes no method to Adyen (every sandbox instance) never needs. A CommonJS package, so it is
 * required synchronously, and a connector is still made synchronously (ConnectorDefinition.create).
 * @example const { CheckoutAPI } = adyenLibrary();
 */
export function adyenLibrary(): AdyenLibrary {
  if (loaded) return loaded;
  // Its 2,400 source maps are not read: with source maps on (bin/colibri.js turns them on for Colibri's
  // own bundle once the packages it imports at start are loaded), loading it would take twice as long.
  const sourceMaps = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(false);
  try {
    loaded = requireFromHere('@adyen/api-library') as AdyenLibrary;
  } finally {
    process.setSourceMapsEnabled(sourceMaps);
  }
  return loaded;
}
