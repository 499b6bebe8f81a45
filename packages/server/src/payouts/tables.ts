/** Table types of the payout domain (migration 0005-payouts); merged into db/schema.ts's Database. */
export type PayoutTables = Record<never, never>;
