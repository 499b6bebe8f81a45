import { stateTable } from '../lib/state-machine';

/**
 * The statuses of a 3DS authentication and their moves, as data (docs/3ds.md). Outcomes known at
 * once (AUTHENTICATED, UNENROLLED, NOT_ALLOWED, ERROR) are stored directly; a challenge waits in
 * CHALLENGE_PENDING for the customer's one answer; an AUTHENTICATED authentication pays once (USED).
 * Every status change goes through changeThreeDsStatus (change-status.ts).
 *
 * Timestamps: a move into AUTHENTICATED, CHALLENGE_FAILED or USED stamps its column. UNENROLLED,
 * NOT_ALLOWED and ERROR are never reached by a move: they are stored when the authentication is
 * created, and `created_at` is their time (a frictionless authentication, stored AUTHENTICATED at
 * once, is created with `authenticated_at` = `created_at`). The one write that leaves the table's moves is
 * releaseThreeDsClaim, the compensation that undoes a USED claim whose payment was not stored.
 */
export const THREE_DS_STATUSES = ['CHALLENGE_PENDING', 'AUTHENTICATED', 'CHALLENGE_FAILED', 'UNENROLLED', 'NOT_ALLOWED', 'ERROR', 'USED'] as const;
export type ThreeDsStatus = (typeof THREE_DS_STATUSES)[number];

export const THREE_DS_STATES = stateTable({
  resource: '3DS authentication',
  moves: {
    CHALLENGE_PENDING: ['AUTHENTICATED', 'CHALLENGE_FAILED'],
    AUTHENTICATED: ['USED'],
    CHALLENGE_FAILED: [],
    UNENROLLED: [],
    NOT_ALLOWED: [],
    ERROR: [],
    USED: [],
  } satisfies Record<ThreeDsStatus, readonly ThreeDsStatus[]>,
  timestamps: { AUTHENTICATED: 'authenticated_at', CHALLENGE_FAILED: 'challenge_failed_at', USED: 'used_at' },
});

/** What the library reports for a status (its events: onSuccess, onUnenrolled, onFailure, onError). */
export const LIBRARY_STATUS: Readonly<Record<ThreeDsStatus, 'SUCCESS' | 'CHALLENGE' | 'UNENROLLED' | 'FAILURE' | 'ERROR'>> = {
  CHALLENGE_PENDING: 'CHALLENGE',
  AUTHENTICATED: 'SUCCESS',
  // The spec's onUnenrolled: "the card allows authentication but customer authentication did not succeed".
  CHALLENGE_FAILED: 'UNENROLLED',
  UNENROLLED: 'UNENROLLED',
  // The spec's onFailure: "the card does not allow authentication".
  NOT_ALLOWED: 'FAILURE',
  ERROR: 'ERROR',
  USED: 'SUCCESS',
};

/** How long a challenge waits for its answer, and how long an authentication can pay. */
export const CHALLENGE_TTL_MS = 10 * 60 * 1000;
export const AUTHENTICATION_TTL_MS = 60 * 60 * 1000;
