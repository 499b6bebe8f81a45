/**
 * The origin of the Colibri service that served this script, read from the script element's own
 * `src`. It is the only place the library sends card data to: never a URL from the merchant's page
 * or from the request. Pages that load the script dynamically still have `document.currentScript`
 * while it runs; the search by file name is a fallback for exotic loaders.
 * @example colibriOriginOf(document.currentScript) // 'https://pay.colibri.example'
 */
export function colibriOriginOf(current: HTMLOrSVGScriptElement | null): string | null {
  const script =
    current instanceof HTMLScriptElement && current.src
      ? current
      : Array.from(document.getElementsByTagName('script')).find((s) => /\/scripts\/client-v1\.0(\.min)?\.js(\?|#|$)/.test(s.src));
  if (!script) return null;
  try {
    const url = new URL(script.src, document.baseURI);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}
