/** Types of dashboard-ui.js, for src/dashboard/assets.ts. */
import type * as esbuild from 'esbuild';

export declare const BUILT_SCRIPT: string;
export declare const BUILT_STYLE: string;
export declare function bundleDashboardUi(
  bundler: typeof esbuild,
  uiDir: string,
): Promise<{ script: string; style: string; inputs: string[] }>;
