import type {
  Authenticate3DSHandlers,
  Authenticate3DSRequest,
  Authenticate3DSResult,
  Colibri3DSError,
  ColibriSdk,
  EncryptCardInput,
  SetUpOptions,
} from '../index';
import { encryptCard } from './encrypt-card';
import { showChallenge } from './challenge';
import { colibriOriginOf } from './origin';
import { validateRequest } from './validate';

/**
 * The entry of client-v1.0.min.js: defines `window.Colibri`. The flow of one authentication:
 * validate in the browser → POST the request to the Colibri service this script was loaded from →
 * the service's simulated directory server and ACS answer at once (frictionless, unenrolled, not
 * allowed, error) or ask for a challenge, shown in an overlay whose iframe reports back by
 * postMessage → the matching handler is called and the promise resolves with the same outcome.
 */

/** Where the service answers, fixed when the script runs: card data goes there and nowhere else. */
const colibriOrigin = colibriOriginOf(document.currentScript);

interface ServerAnswer {
  id: string;
  status: 'SUCCESS' | 'CHALLENGE' | 'UNENROLLED' | 'FAILURE' | 'ERROR';
  paymentToken?: string;
  challengeUrl?: string;
  error?: { code: string; message: string };
}

let settings: SetUpOptions | undefined;

const sdk: ColibriSdk = {
  version: '1.0',
  setUp(options: SetUpOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('Colibri.setUp: options must be an object');
    if (options.env !== 'PROD' && options.env !== 'SANDBOX') throw new TypeError('Colibri.setUp: env must be PROD or SANDBOX');
    if (typeof options.contractId !== 'string' || options.contractId.trim() === '') throw new TypeError('Colibri.setUp: contractId must be a non-empty string');
    settings = { env: options.env, contractId: options.contractId.trim() };
  },
  async authenticate3DS(request: Authenticate3DSRequest, handlers: Authenticate3DSHandlers = {}) {
    const result = await authenticate(request);
    deliver(result, handlers);
    return result;
  },
  encryptCard(card: EncryptCardInput) {
    return encryptCard(card, colibriOrigin, settings?.contractId);
  },
};

async function authenticate(input: unknown): Promise<Authenticate3DSResult> {
  if (!settings) return failed({ code: 'NOT_SET_UP', message: 'Call Colibri.setUp({env, contractId}) before authenticate3DS.' });
  if (!colibriOrigin) return failed({ code: 'NOT_SET_UP', message: 'The Colibri origin could not be read from this script\'s src.' });
  const checked = validateRequest(input);
  if (!checked.ok) {
    return failed({ code: 'VALIDATION_ERROR', message: `The request has ${checked.fields.length} invalid field(s); nothing was sent.`, fields: checked.fields });
  }

  let answer: ServerAnswer;
  try {
    const response = await fetch(`${colibriOrigin}/3ds/authentications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...checked.request, contractId: settings.contractId, env: settings.env }),
      // The contract id is public and the call needs no cookie: nothing ambient travels with the card.
      credentials: 'omit',
      mode: 'cors',
    });
    const body = (await response.json()) as ServerAnswer & { message?: string; errors?: { code: string; description: string }[] };
    if (!response.ok) return failed(serverError(body));
    answer = body;
  } catch {
    return failed({ code: 'NETWORK_ERROR', message: 'Colibri could not be reached; nothing was charged.' });
  }

  if (answer.status === 'CHALLENGE') {
    // Only a challenge page of the same Colibri origin is ever framed.
    if (!answer.challengeUrl || !answer.challengeUrl.startsWith('/3ds/challenges/')) return failed({ code: 'AUTHENTICATION_ERROR', message: 'Invalid challenge.' });
    const outcome = await showChallenge(colibriOrigin, answer.id, `${colibriOrigin}${answer.challengeUrl}`);
    if (outcome.status === 'ERROR') return failed(outcome.error);
    answer = { ...answer, status: outcome.status, ...(outcome.paymentToken ? { paymentToken: outcome.paymentToken } : {}) };
  }
  switch (answer.status) {
    case 'SUCCESS':
      return { status: 'SUCCESS', id: answer.id, paymentToken: answer.paymentToken ?? '' };
    case 'UNENROLLED':
      return { status: 'UNENROLLED', id: answer.id };
    case 'FAILURE':
      return { status: 'FAILURE', id: answer.id };
    default:
      return { ...failed(answer.error ?? { code: 'AUTHENTICATION_ERROR', message: 'The authentication failed.' }), id: answer.id };
  }
}

function failed(error: Colibri3DSError): Authenticate3DSResult {
  return { status: 'ERROR', error };
}

/** A refusal by the service, in the library's error shape: each `field: rule` description becomes a field. */
function serverError(body: { message?: string; errors?: { code: string; description: string }[] }): Colibri3DSError {
  const errors = Array.isArray(body.errors) ? body.errors : [];
  const fields = errors.map((e) => {
    const colon = e.description.indexOf(': ');
    return colon > 0 ? { field: e.description.slice(0, colon), message: e.description.slice(colon + 2) } : { field: '', message: e.description };
  });
  return { code: errors[0]?.code ?? 'SERVER_ERROR', message: body.message ?? 'Colibri refused the request.', fields };
}

/** Calls the handler of the outcome. A handler that throws must not turn the outcome into a rejection. */
function deliver(result: Authenticate3DSResult, handlers: Authenticate3DSHandlers): void {
  try {
    if (result.status === 'SUCCESS') handlers.onSuccess?.({ id: result.id ?? '', paymentToken: result.paymentToken ?? '' });
    else if (result.status === 'UNENROLLED') handlers.onUnenrolled?.();
    else if (result.status === 'FAILURE') handlers.onFailure?.();
    else handlers.onError?.(result.error ?? { code: 'AUTHENTICATION_ERROR', message: 'The authentication failed.' });
  } catch (error) {
    // Rethrown outside the promise so it still reaches the console and error monitoring.
    setTimeout(() => {
      throw error;
    }, 0);
  }
}

window.Colibri = sdk;
