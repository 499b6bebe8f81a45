import { Agent, request, type Dispatcher } from 'undici';
import { ProcessorTimeoutError, ProcessorUnavailableError } from '../../processor/processor';

/**
 * A thin typed client of the operations of the Banco Central's API Pix (v2) that Colibri uses, and of
 * the OAuth2 client-credentials token request every PSP puts in front of it, all over mutual TLS.
 *
 * Written here rather than taken from npm: the clients published there are each one PSP's SDK (its own
 * hosts, extra endpoints and a certificate format of its own, e.g. `gn-api-sdk-typescript`) or an
 * application built around one (`@cloudcommerce/app-pix`), and none is a client of the standard itself
 * that any PSP implementing it can be reached with. The operations are few and the standard fixes their
 * shapes, so a client of exactly those costs little; the types below follow the standard's schemas.
 */

/** `CobrancaStatus` of the standard. */
export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
/** Status of a `Devolucao`. */
export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
/**
 * `DevolucaoNatureza`: why a devolução was made. A receiver asks only for ORIGINAL or RETIRADA
 * (`DevolucaoSolicitadaNatureza`); the MED ones are made by the PSP on the Banco Central's Mecanismo
 * Especial de Devolução. Absent, it reads as ORIGINAL.
 */
export type DevolucaoNatureza = 'ORIGINAL' | 'RETIRADA' | 'MED_OPERACIONAL' | 'MED_FRAUDE' | 'MED_PIX_AUTOMATICO';

/** `CobSolicitada`: the body of `PUT /cob/{txid}` (an immediate charge). */
export interface CobSolicitada {
  calendario: { expiracao: number };
  devedor?: { cpf: string; nome: string } | { cnpj: string; nome: string };
  /** `original` is a decimal string with two places; `modalidadeAlteracao` 0 means the payer may not change it. */
  valor: { original: string; modalidadeAlteracao?: 0 | 1 };
  /** The receiver's PIX key (DICT) at this PSP. */
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: { nome: string; valor: string }[];
}

/** `Devolucao`: a refund of a received PIX. */
export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  /** A `DevolucaoNatureza` (a string: a PSP may send one this client does not know). */
  natureza?: string;
  descricao?: string;
  horario: { solicitacao?: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
}

/** `Pix`: a PIX received, as `GET /pix/{e2eid}` and `GET /cob/{txid}` show it and the `/pix` webhook delivers it. */
export interface Pix {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  chave?: string;
  infoPagador?: string;
  devolucoes?: Devolucao[];
}

/** `CobCompleta` (and `CobGerada`, its subset): an immediate charge as the PSP holds it. */
export interface CobCompleta {
  calendario: { criacao: string; expiracao: number };
  txid: string;
  revisao: number;
  loc?: { id: number; location: string; tipoCob: string; criacao?: string };
  location?: string;
  status: CobStatus;
  valor: { original: string; modalidadeAlteracao?: number };
  chave: string;
  pixCopiaECola?: string;
  pix?: Pix[];
}

/** `GET /pix`'s answer (`PixConsultados`): the PIX received in a period, a page at a time. */
export interface PixConsultados {
  parametros: {
    inicio: string;
    fim: string;
    paginacao: { paginaAtual: number; itensPorPagina: number; quantidadeDePaginas: number; quantidadeTotalDeItens: number };
  };
  pix: Pix[];
}

/** `Problema` (RFC 7807), the standard's error body. Its `type` ends in the error's name (`CobOperacaoInvalida`). */
export interface Problema {
  type: string;
  title: string;
  status: number;
  detail?: string;
  violacoes?: { razao?: string; propriedade?: string; valor?: string }[];
}

/** The PSP refused a request with a 4xx: sending it again changes nothing. */
export class PixRequestRefused extends Error {
  constructor(
    readonly statusCode: number,
    readonly problem: Problema,
  ) {
    super(`${problem.title}${problem.detail ? `: ${problem.detail}` : ''}`);
    this.name = 'PixRequestRefused';
  }

  /** The error's name in the standard (the last segment of `type`), e.g. `PixDevolucaoInvalida`. */
  get errorName(): string {
    return this.problem.type.split('/').pop() ?? '';
  }
}

export interface PixApiOptions {
  /** The API Pix base URL at the PSP, e.g. https://pix.example.com/api/v2 */
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The client certificate and key the PSP registered (PEM), presented on every connection. */
  cert: string;
  key: string;
  /** PEM certificates to trust for the PSP's servers instead of the system's. */
  ca: string | undefined;
  scope: string;
  timeoutMs: number;
}

/** Failures before the request was sent (no connection, or the TLS handshake refused): nothing reached the PSP. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID']);

function errorCodeOf(error: unknown): string | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 4; current = current.cause as typeof current, depth += 1) {
    if (typeof current.code === 'string' && current.code !== 'UND_ERR_SOCKET') return current.code;
  }
  return undefined;
}

/** A TLS alert from the PSP (e.g. it refused the client certificate) means it never handled the request. */
function notSent(code: string | undefined): boolean {
  return code !== undefined && (NOT_SENT.has(code) || /^ERR_SSL_.*ALERT/.test(code));
}

/**
 * @example
 * const api = new PixApiClient({ apiUrl, tokenUrl, clientId, clientSecret, cert, key, ca: undefined, scope: 'cob.write cob.read pix.write pix.read', timeoutMs: 15_000 });
 * const cob = await api.putCob(txid, { calendario: { expiracao: 3600 }, valor: { original: '10.00' }, chave });
 */
export class PixApiClient {
  private readonly dispatcher: Agent;
  private token: { value: string; expiresAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;
  /** Tokens obtained so far (doctor and tests read it). */
  tokensIssued = 0;

  constructor(private readonly options: PixApiOptions) {
    this.dispatcher = new Agent({ connect: { cert: options.cert, key: options.key, ...(options.ca ? { ca: options.ca } : {}) } });
  }

  /** `PUT /cob/{txid}`: creates the immediate charge (or revises it while ATIVA). */
  putCob(txid: string, body: CobSolicitada): Promise<CobCompleta> {
    return this.call('PUT', `/cob/${encodeURIComponent(txid)}`, body) as Promise<CobCompleta>;
  }

  /** `GET /cob/{txid}`; null when the PSP has no such charge (404). */
  async getCob(txid: string): Promise<CobCompleta | null> {
    return (await this.call('GET', `/cob/${encodeURIComponent(txid)}`, undefined, true)) as CobCompleta | null;
  }

  /** `PATCH /cob/{txid}` with `status: REMOVIDA_PELO_USUARIO_RECEBEDOR`: withdraws an open charge. */
  patchCob(txid: string, body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' }): Promise<CobCompleta> {
    return this.call('PATCH', `/cob/${encodeURIComponent(txid)}`, body) as Promise<CobCompleta>;
  }

  /** `PUT /pix/{e2eid}/devolucao/{id}`: asks for a refund of a received PIX. */
  putDevolucao(e2eid: string, id: string, body: { valor: string; natureza?: 'ORIGINAL'; descricao?: string }): Promise<Devolucao> {
    return this.call('PUT', `/pix/${encodeURIComponent(e2eid)}/devolucao/${encodeURIComponent(id)}`, body) as Promise<Devolucao>;
  }

  /** `GET /pix/{e2eid}/devolucao/{id}`; null when the PSP has no such refund (404). */
  async getDevolucao(e2eid: string, id: string): Promise<Devolucao | null> {
    return (await this.call('GET', `/pix/${encodeURIComponent(e2eid)}/devolucao/${encodeURIComponent(id)}`, undefined, true)) as Devolucao | null;
  }

  /** `GET /pix/{e2eid}`: a received PIX with its devoluções (a MED among them); null when the PSP has no such PIX (404). */
  async getPix(e2eid: string): Promise<Pix | null> {
    return (await this.call('GET', `/pix/${encodeURIComponent(e2eid)}`, undefined, true)) as Pix | null;
  }

  /**
   * `GET /pix?inicio&fim`: the PIX received from `inicio` to `fim` (RFC 3339), with their devoluções,
   * one page (from 0) of `perPage` at a time.
   * @example const page = await api.listPix('2026-11-25T00:00:00-03:00', '2026-11-26T00:00:00-03:00', 0, 1000)
   */
  listPix(inicio: string, fim: string, page: number, perPage: number): Promise<PixConsultados> {
    const query = new URLSearchParams({ inicio, fim, 'paginacao.paginaAtual': String(page), 'paginacao.itensPorPagina': String(perPage) });
    return this.call('GET', `/pix?${query.toString()}`, undefined) as Promise<PixConsultados>;
  }

  /**
   * A bearer token from the PSP's OAuth2 token endpoint (client credentials, HTTP Basic, over mTLS),
   * kept until shortly before it expires; concurrent calls share one request.
   */
  async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.value;
    this.pendingToken ??= this.fetchToken().finally(() => {
      this.pendingToken = undefined;
    });
    return this.pendingToken;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64');
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: this.options.scope }).toString();
    // The token request itself is never the operation: whatever befalls it, nothing reached the API.
    let answer: { status: number; text: string };
    try {
      answer = await this.send('POST', this.options.tokenUrl, { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' }, form);
    } catch (error) {
      throw Object.assign(new ProcessorUnavailableError('pix token'), { cause: error });
    }
    if (answer.status >= 500 || answer.status === 429) throw new ProcessorUnavailableError(`pix token (HTTP ${answer.status})`);
    if (answer.status >= 400) throw new PixRequestRefused(answer.status, problemOf(answer.status, answer.text));
    const parsed = JSON.parse(answer.text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof parsed.access_token !== 'string') throw new ProcessorUnavailableError('pix token (no access_token)');
    const lifetimeMs = (typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 300) * 1000;
    // Renewed a little early, so that a token never expires between being read and being used.
    this.token = { value: parsed.access_token, expiresAt: Date.now() + lifetimeMs - Math.min(30_000, lifetimeMs / 10) };
    this.tokensIssued += 1;
    return parsed.access_token;
  }

  /**
   * One API call with a bearer token. A 401 means the token was revoked or expired early: it is
   * dropped and the call made once more with a new one. Failures are sorted as the processor contract
   * needs: nothing sent → ProcessorUnavailableError; no answer, a dropped connection or a 5xx →
   * ProcessorTimeoutError (the PSP may have acted); another 4xx → PixRequestRefused.
   */
  private async call(method: Dispatcher.HttpMethod, path: string, body: unknown, nullOn404 = false): Promise<unknown> {
    const operation = `pix ${method} ${path.split(/[/?]/)[1]}`;
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.accessToken();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      let answer: { status: number; text: string };
      try {
        answer = await this.send(method, `${this.options.apiUrl.replace(/\/$/, '')}${path}`, headers, body === undefined ? undefined : JSON.stringify(body));
      } catch (error) {
        if (notSent(errorCodeOf(error))) throw new ProcessorUnavailableError(operation);
        throw new ProcessorTimeoutError(operation);
      }
      if (answer.status === 401 && attempt === 0) {
        this.token = undefined;
        continue;
      }
      if (answer.status === 429) throw new ProcessorUnavailableError(`${operation} (rate limited)`);
      if (answer.status >= 500) throw new ProcessorTimeoutError(`${operation} (HTTP ${answer.status})`);
      if (answer.status === 404 && nullOn404) return null;
      if (answer.status >= 400) throw new PixRequestRefused(answer.status, problemOf(answer.status, answer.text));
      try {
        return answer.text === '' ? {} : JSON.parse(answer.text);
      } catch {
        throw new ProcessorTimeoutError(`${operation} (an answer that is not JSON)`);
      }
    }
  }

  private async send(method: Dispatcher.HttpMethod, url: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string }> {
    const response = await request(url, {
      method,
      headers,
      body,
      dispatcher: this.dispatcher,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    return { status: response.statusCode, text: await response.body.text() };
  }
}

function problemOf(status: number, text: string): Problema {
  try {
    const parsed = JSON.parse(text) as Partial<Problema>;
    if (typeof parsed.type === 'string' && typeof parsed.title === 'string') return { status, ...parsed } as Problema;
  } catch {
    // Not a Problema body: the status says enough.
  }
  return { type: `https://pix.bcb.gov.br/api/v2/error/HTTP${status}`, title: `HTTP ${status}`, status };
}
