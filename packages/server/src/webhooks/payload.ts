/** The JSON body of a callback (contract, Callbacks): `{id, type, created_at, data}`. */
export interface CallbackPayload {
  /** The event id; also the `webhook-id` header, the same on every attempt. */
  id: string;
  type: string;
  /** When the event was recorded, ISO 8601 in UTC with milliseconds. */
  created_at: string;
  /** The resource's identifiers, reference_id, new status and amounts (docs/callbacks.md, per type). */
  data: unknown;
}

/**
 * Serialises an event as the callback body. The bytes built here are the bytes signed and sent.
 * @example callbackBody({ id, type: 'payment.status_changed', createdAt: new Date(), data: { status: 'PAID' } })
 * // '{"id":"…","type":"payment.status_changed","created_at":"2026-11-22T10:15:30.123Z","data":{"status":"PAID"}}'
 */
export function callbackBody(event: { id: string; type: string; createdAt: Date; data: unknown }): string {
  const payload: CallbackPayload = { id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data: event.data };
  return JSON.stringify(payload);
}
