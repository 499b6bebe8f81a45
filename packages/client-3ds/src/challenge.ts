import type { Colibri3DSError } from '../index';

/** How the challenge ended, as its iframe reported it (or as the customer closed it). */
export type ChallengeOutcome =
  | { status: 'SUCCESS'; paymentToken: string }
  | { status: 'UNENROLLED'; paymentToken?: undefined }
  | { status: 'ERROR'; error: Colibri3DSError; paymentToken?: undefined };

/** The issuer gives the customer this long to answer; the service refuses later answers too. */
const CHALLENGE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Shows the issuer's challenge page (served by Colibri) in a full-screen overlay and waits for its
 * result. The result arrives by postMessage; a message counts only if it comes from the Colibri
 * origin, from this overlay's own iframe, and names this authentication, so no other frame or
 * window of the page can fake a success.
 * @example const outcome = await showChallenge('https://pay.colibri.example', id, url);
 */
export function showChallenge(colibriOrigin: string, id: string, url: string): Promise<ChallengeOutcome> {
  return new Promise((resolve) => {
    const overlay = document.createElement('div');
    overlay.setAttribute('data-colibri-3ds', 'overlay');
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-modal', 'true');
    overlay.setAttribute('aria-label', 'Card authentication');
    overlay.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center';
    const box = document.createElement('div');
    box.style.cssText = 'position:relative;background:#fff;border-radius:8px;box-shadow:0 8px 32px rgba(0,0,0,.3);width:min(420px,94vw);height:min(520px,90vh);overflow:hidden';
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\u00d7';
    close.setAttribute('aria-label', 'Cancel authentication');
    close.style.cssText = 'position:absolute;top:4px;right:8px;border:0;background:none;font-size:24px;cursor:pointer;z-index:1';
    const frame = document.createElement('iframe');
    frame.src = url;
    frame.title = 'Card authentication';
    frame.name = 'colibri-3ds-challenge';
    // Scripts and forms for the page itself; same-origin so it keeps Colibri's origin (an opaque
    // origin could not be told apart from any other sandboxed frame). No top navigation, no popups.
    frame.setAttribute('sandbox', 'allow-scripts allow-forms allow-same-origin');
    frame.style.cssText = 'border:0;width:100%;height:100%';
    box.append(close, frame);
    overlay.append(box);

    const finish = (outcome: ChallengeOutcome) => {
      window.removeEventListener('message', onMessage);
      clearTimeout(timer);
      overlay.remove();
      resolve(outcome);
    };
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== colibriOrigin || event.source !== frame.contentWindow) return;
      const data = event.data as { type?: unknown; id?: unknown; status?: unknown; paymentToken?: unknown } | null;
      if (!data || data.type !== 'colibri:3ds-challenge' || data.id !== id) return;
      if (data.status === 'SUCCESS' && typeof data.paymentToken === 'string') finish({ status: 'SUCCESS', paymentToken: data.paymentToken });
      else if (data.status === 'UNENROLLED') finish({ status: 'UNENROLLED' });
      else finish({ status: 'ERROR', error: { code: 'AUTHENTICATION_ERROR', message: 'The challenge could not be completed.' } });
    };
    const timer = setTimeout(() => finish({ status: 'ERROR', error: { code: 'CHALLENGE_TIMEOUT', message: 'The challenge was not answered in time.' } }), CHALLENGE_TIMEOUT_MS);
    close.addEventListener('click', () => finish({ status: 'ERROR', error: { code: 'CHALLENGE_CANCELED', message: 'The customer closed the authentication.' } }));
    window.addEventListener('message', onMessage);
    document.body.append(overlay);
  });
}
