import { stateTable } from '../lib/state-machine';

/**
 * A reconciliation line's status (docs/reconciliation.md, "Statuses"): open until an operator resolves
 * it (with an adjustment or a note), or until a later run of the processor lists the operation it
 * found missing (settled late). RESOLVED is final.
 */
export const LINE_STATES = stateTable({
  resource: 'reconciliation line',
  moves: { OPEN: ['RESOLVED'], RESOLVED: [] },
  timestamps: { RESOLVED: 'resolved_at' },
});
export type LineStatus = keyof typeof LINE_STATES.moves;
