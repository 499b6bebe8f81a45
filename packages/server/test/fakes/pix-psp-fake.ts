import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { apiPixProblems, DEVOLUCAO_ID, END_TO_END_ID, TXID, type SchemaName } from './api-pix-schema';
import type { Issued } from './test-pki';

/**
 * A local fake of a PSP implementing the Banco Central's API Pix, written from the published OpenAPI
 * (api-pix-schema.ts), for tests only (loopback):
 * - every connection is mutual TLS: the handshake refuses a client certificate its CA did not issue;
 * - `POST /oauth/token` issues bearer tokens for HTTP Basic client credentials (grant_type
 *   client_credentials), lasting `tokenTtlSeconds`; the API refuses any other token with 401;
 * - `PUT|GET|PATCH /api/v2/cob/{txid}`, `GET /api/v2/pix/{e2eid}` and `PUT|GET /api/v2/pix/{e2eid}/devolucao/{id}`
 *   keep their own books, and `GET /api/v2/pix?inicio&fim` lists the PIX received in a period, a page at a time;
 *   every request is checked against the standard's schemas and refused with its
 *   `Problema` body when it breaks them (and recorded with its problems, which a test asserts empty);
 * - `pay(txid)` is a payer paying a charge; `med(e2eid, …)` is the PSP returning part of a PIX on the
 *   Banco Central's MED (a devolução it makes itself, with an id it invents); `notify` posts the `/pix` webhook to Colibri over mutual
 *   TLS with the PSP's client certificate; faults make the next API call fail or go unanswered.
 */

export interface FakeCob {
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  body: Record<string, unknown>;
  criacao: string;
  location: string;
  locId: number;
  pix: FakePix[];
}

export interface FakeDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
  reads: number;
}

export interface FakePix {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
  devolucoes: FakeDevolucao[];
}

/** How the next API calls misbehave, in order: fail before acting, act then fail, or act and never answer. */
export type PixFault = 'HTTP_500_BEFORE' | 'HTTP_503_AFTER' | 'TIMEOUT_AFTER';

const ERROR_BASE = 'https://pix.bcb.gov.br/api/v2/error/';
const alnum = (length: number) => randomBytes(length).toString('base64').replace(/[^a-zA-Z0-9]/g, '').padEnd(length, '0').slice(0, length);

export class PixPspFake {
  readonly clientId = `colibri-${randomBytes(4).toString('hex')}`;
  readonly clientSecret = randomBytes(16).toString('hex');
  /** The receiver's random (EVP) PIX key. */
  readonly receiverKey = randomUUID();
  readonly ispb = '12345678';
  readonly cobs = new Map<string, FakeCob>();
  readonly received: { method: string; path: string; body: unknown; problems: string[] }[] = [];
  readonly faults: PixFault[] = [];
  tokenTtlSeconds = 300;
  tokenRequests = 0;
  /** How many reads of a devolução return EM_PROCESSAMENTO before it settles as `devolucaoOutcome`. */
  readsBeforeSettling = 1;
  devolucaoOutcome: 'DEVOLVIDO' | 'NAO_REALIZADO' = 'DEVOLVIDO';
  private readonly tokens = new Map<string, number>();
  private readonly pixByE2e = new Map<string, FakePix>();
  private server: Server | undefined;
  private locations = 0;
  url = '';

  /** `tls.cert`/`tls.key` serve the API; `tls.clientCa` is the CA whose client certificates it accepts. */
  constructor(private readonly tls: { server: Issued; clientCa: string }) {}

  async start(): Promise<this> {
    this.server = createServer({ cert: this.tls.server.cert, key: this.tls.server.key, ca: this.tls.clientCa, requestCert: true, rejectUnauthorized: true }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Colibri's settings for this PSP; the certificate files are given as paths. */
  env(files: { cert: string; key: string; ca: string }): Record<string, string> {
    return {
      COLIBRI_PIX_API_URL: `${this.url}/api/v2`,
      COLIBRI_PIX_TOKEN_URL: `${this.url}/oauth/token`,
      COLIBRI_PIX_CLIENT_ID: this.clientId,
      COLIBRI_PIX_CLIENT_SECRET: this.clientSecret,
      COLIBRI_PIX_CERT: files.cert,
      COLIBRI_PIX_KEY: files.key,
      COLIBRI_PIX_CA: files.ca,
      COLIBRI_PIX_RECEIVER_KEY: this.receiverKey,
      COLIBRI_PIX_TIMEOUT_MS: '800',
    };
  }

  /** Every token issued so far stops working (as when a PSP revokes them). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** A payer pays an ATIVA charge in full: the PIX is settled and the charge CONCLUIDA. */
  pay(txid: string): FakePix {
    const cob = this.cobs.get(txid);
    if (!cob || cob.status !== 'ATIVA') throw new Error(`charge ${txid} is not ATIVA`);
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
    const pix: FakePix = { endToEndId: `E${this.ispb}${stamp}${alnum(11)}`, txid, valor: (cob.body.valor as { original: string }).original, horario: new Date().toISOString(), devolucoes: [] };
    cob.status = 'CONCLUIDA';
    cob.pix.push(pix);
    this.pixByE2e.set(pix.endToEndId, pix);
    return pix;
  }

  /** A PIX as the standard writes it (webhook bodies and charges). */
  pixView(pix: FakePix): Record<string, unknown> {
    const { devolucoes, ...rest } = pix;
    return { ...rest, ...(devolucoes.length > 0 ? { devolucoes: devolucoes.map(({ reads: _reads, ...d }) => ({ ...d })) } : {}) };
  }

  /** Settles a devolução now (the PSP notifies its final status by webhook). */
  settle(e2eid: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO'): FakeDevolucao {
    const devolucao = this.pixByE2e.get(e2eid)?.devolucoes.find((d) => d.id === id);
    if (!devolucao) throw new Error(`no devolução ${id} of ${e2eid}`);
    Object.assign(devolucao, { status, horario: { ...devolucao.horario, liquidacao: new Date().toISOString() } }, status === 'NAO_REALIZADO' ? { motivo: 'Conta do pagador encerrada' } : {});
    return devolucao;
  }

  /**
   * The PSP returns `valor` of a received PIX on the MED (the payer's bank's claim was accepted): a
   * devolução of the given `natureza` with an id the PSP invents (`id`, or `MED` and random letters),
   * `DEVOLVIDO` unless told. Like any devolução it may not take the PIX past its `valor`.
   */
  med(e2eid: string, valor: string, options: { natureza?: 'MED_OPERACIONAL' | 'MED_FRAUDE' | 'MED_PIX_AUTOMATICO'; status?: FakeDevolucao['status']; id?: string } = {}): FakeDevolucao {
    const pix = this.pixByE2e.get(e2eid);
    if (!pix) throw new Error(`no PIX ${e2eid}`);
    const cents = (v: string) => BigInt(v.replace('.', ''));
    const returned = pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + cents(d.valor), 0n);
    if (returned + cents(valor) > cents(pix.valor)) throw new Error(`a MED of ${valor} would return more than the PIX's ${pix.valor}`);
    const status = options.status ?? 'DEVOLVIDO';
    const solicitacao = new Date(Date.now() - 60_000).toISOString();
    const devolucao: FakeDevolucao = {
      id: options.id ?? `MED${alnum(20)}`,
      rtrId: `D${this.ispb}${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${alnum(11)}`,
      valor,
      natureza: options.natureza ?? 'MED_FRAUDE',
      horario: { solicitacao, ...(status === 'EM_PROCESSAMENTO' ? {} : { liquidacao: new Date().toISOString() }) },
      status,
      reads: 0,
    };
    pix.devolucoes.push(devolucao);
    return devolucao;
  }

  /**
   * Posts `{pix: [...]}` to `{webhookUrl}/pix` over mutual TLS as the PSP does, with its client
   * certificate (`client`) and trusting Colibri's listener certificate through `ca`. The body is checked
   * against the standard first. Answers the status and body, or `status: 0` and the error when the TLS
   * handshake or connection failed.
   */
  notify(webhookPixUrl: string, pix: readonly Record<string, unknown>[], tls: { client?: Issued; ca: string }): Promise<{ status: number; body: any; error?: string }> {
    const body = { pix };
    const problems = apiPixProblems('WebhookPixBody', body);
    if (problems.length > 0) throw new Error(`the fake would send a webhook the standard does not allow: ${problems.join('; ')}`);
    const payload = JSON.stringify(body);
    return new Promise((resolve) => {
      const req = request(webhookPixUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }, ca: tls.ca, ...(tls.client ? { cert: tls.client.cert, key: tls.client.key } : {}), agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) });
        });
      });
      req.on('error', (error) => resolve({ status: 0, body: undefined, error: (error as NodeJS.ErrnoException).code ?? error.message }));
      req.end(payload);
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = new URL(req.url ?? '/', 'https://fake').pathname;
    const method = req.method ?? 'GET';
    const send = (status: number, answer: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': status >= 400 && status !== 401 ? 'application/problem+json' : 'application/json', ...headers }).end(JSON.stringify(answer));
    };
    const problem = (status: number, type: string, title: string, detail?: string) => send(status, { type: `${ERROR_BASE}${type}`, title, status, ...(detail ? { detail } : {}) });
    if (!(req.socket as TLSSocket).authorized) return problem(403, 'AcessoNegado', 'Acesso Negado', 'client certificate');

    if (path === '/oauth/token') return this.token(req, raw, send);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = token ? this.tokens.get(token) : undefined;
    if (!expiresAt || Date.now() > expiresAt) return send(401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });

    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      return problem(400, 'RequisicaoInvalida', 'Requisição inválida', 'corpo não é JSON');
    }
    if (path === '/api/v2/pix' && method === 'GET') return this.listPix(new URL(req.url ?? '/', 'https://fake').searchParams, send, problem);
    const cob = /^\/api\/v2\/cob\/([^/]+)$/.exec(path);
    const devolucao = /^\/api\/v2\/pix\/([^/]+)\/devolucao\/([^/]+)$/.exec(path);
    const pixPath = method === 'GET' ? /^\/api\/v2\/pix\/([^/]+)$/.exec(path) : null;
    const schema: SchemaName | undefined = cob && method === 'PUT' ? 'CobSolicitada' : cob && method === 'PATCH' ? 'CobRevisada' : devolucao && method === 'PUT' ? 'DevolucaoSolicitada' : undefined;
    const problems = [
      ...(schema ? apiPixProblems(schema, body) : []),
      ...(cob && !TXID.test(cob[1]!) ? ['txid: not [a-zA-Z0-9]{26,35}'] : []),
      ...(devolucao && !END_TO_END_ID.test(devolucao[1]!) ? ['e2eid: not [a-zA-Z0-9]{32}'] : []),
      ...(devolucao && !DEVOLUCAO_ID.test(devolucao[2]!) ? ['id: not [a-zA-Z0-9]{1,35}'] : []),
      ...(pixPath && !END_TO_END_ID.test(pixPath[1]!) ? ['e2eid: not [a-zA-Z0-9]{32}'] : []),
    ];
    this.received.push({ method, path, body, problems });
    if (pixPath) {
      if (problems.length > 0) return problem(400, 'RequisicaoInvalida', 'Requisição inválida', problems.join('; '));
      const pix = this.pixByE2e.get(pixPath[1]!);
      return pix ? send(200, this.pixView(pix)) : problem(404, 'PixNaoEncontrado', 'Pix não encontrado.');
    }
    if (!cob && !devolucao) return problem(404, 'NaoEncontrado', 'Não Encontrado');
    if (problems.length > 0) return problem(400, cob ? 'CobOperacaoInvalida' : 'PixDevolucaoInvalida', 'Requisição inválida', problems.join('; '));

    const fault = method === 'GET' ? undefined : this.faults.shift();
    if (fault === 'HTTP_500_BEFORE') return problem(500, 'ErroInternoDoServidor', 'Erro interno do servidor');
    const [status, answer] = cob ? this.cob(method, cob[1]!, body as Record<string, unknown>) : this.devolucao(method, devolucao![1]!, devolucao![2]!, body as Record<string, unknown>);
    if (fault === 'HTTP_503_AFTER') return problem(503, 'ServicoIndisponivel', 'Serviço Indisponível');
    if (fault === 'TIMEOUT_AFTER') return;
    send(status, answer);
  }

  private token(req: IncomingMessage, raw: string, send: (status: number, answer: unknown) => void): void {
    const form = new URLSearchParams(raw);
    const [id, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':').map(decodeURIComponent);
    const valid = req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') && form.get('grant_type') === 'client_credentials';
    this.received.push({ method: req.method ?? '', path: '/oauth/token', body: Object.fromEntries(form), problems: valid ? [] : ['not a client_credentials form post'] });
    if (!valid) return send(400, { error: 'invalid_request' });
    if (id !== this.clientId || secret !== this.clientSecret) return send(401, { error: 'invalid_client' });
    this.tokenRequests += 1;
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, Date.now() + this.tokenTtlSeconds * 1000);
    send(200, { access_token: token, token_type: 'Bearer', expires_in: this.tokenTtlSeconds, scope: form.get('scope') ?? 'cob.write cob.read pix.write pix.read' });
  }

  /** `GET /pix`: the PIX whose horario is within [inicio, fim], oldest first, in pages (`PixConsultados`). */
  private listPix(query: URLSearchParams, send: (status: number, answer: unknown) => void, problem: (status: number, type: string, title: string, detail?: string) => void): void {
    const inicio = query.get('inicio') ?? '';
    const fim = query.get('fim') ?? '';
    const page = Number(query.get('paginacao.paginaAtual') ?? 0);
    const perPage = Number(query.get('paginacao.itensPorPagina') ?? 100);
    const problems = [
      ...(Number.isNaN(Date.parse(inicio)) ? ['inicio: not a date-time'] : []),
      ...(Number.isNaN(Date.parse(fim)) ? ['fim: not a date-time'] : []),
      ...(!Number.isInteger(page) || page < 0 ? ['paginacao.paginaAtual: not an integer >= 0'] : []),
      ...(!Number.isInteger(perPage) || perPage < 1 || perPage > 1000 ? ['paginacao.itensPorPagina: not an integer from 1 to 1000'] : []),
    ];
    this.received.push({ method: 'GET', path: '/api/v2/pix', body: Object.fromEntries(query), problems });
    if (problems.length > 0) return problem(400, 'ConsultaPixInvalida', 'Consulta inválida', problems.join('; '));
    const from = Date.parse(inicio);
    const to = Date.parse(fim);
    const found = [...this.pixByE2e.values()].filter((p) => Date.parse(p.horario) >= from && Date.parse(p.horario) <= to).sort((a, b) => a.horario.localeCompare(b.horario));
    send(200, {
      parametros: { inicio, fim, paginacao: { paginaAtual: page, itensPorPagina: perPage, quantidadeDePaginas: Math.ceil(found.length / perPage), quantidadeTotalDeItens: found.length } },
      pix: found.slice(page * perPage, (page + 1) * perPage).map((p) => this.pixView(p)),
    });
  }

  /** A PIX received for no charge of Colibri's (paid to the key directly): the PSP lists it all the same. */
  receiveUnknown(valor: string): FakePix {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 12);
    const pix: FakePix = { endToEndId: `E${this.ispb}${stamp}${alnum(11)}`, txid: alnum(30), valor, horario: new Date().toISOString(), devolucoes: [] };
    this.pixByE2e.set(pix.endToEndId, pix);
    return pix;
  }

  /** The PSP forgets a PIX it received (to plant one missing from its list). */
  forget(e2eid: string): void {
    this.pixByE2e.delete(e2eid);
  }

  private cobView(cob: FakeCob): Record<string, unknown> {
    return {
      ...cob.body,
      calendario: { criacao: cob.criacao, expiracao: (cob.body.calendario as { expiracao?: number } | undefined)?.expiracao ?? 86_400 },
      txid: cob.txid,
      revisao: cob.revisao,
      loc: { id: cob.locId, location: cob.location, tipoCob: 'cob', criacao: cob.criacao },
      location: cob.location,
      status: cob.status,
      ...(cob.pix.length > 0 ? { pix: cob.pix.map((p) => this.pixView(p)) } : {}),
    };
  }

  private cob(method: string, txid: string, body: Record<string, unknown>): [number, unknown] {
    const existing = this.cobs.get(txid);
    const invalid = (detail: string): [number, unknown] => [400, { type: `${ERROR_BASE}CobOperacaoInvalida`, title: 'Cobrança inválida.', status: 400, detail }];
    if (method === 'GET') return existing ? [200, this.cobView(existing)] : [404, { type: `${ERROR_BASE}CobNaoEncontrado`, title: 'Cobrança não encontrada.', status: 404 }];
    if (method === 'PATCH') {
      if (!existing) return [404, { type: `${ERROR_BASE}CobNaoEncontrado`, title: 'Cobrança não encontrada.', status: 404 }];
      if (existing.status !== 'ATIVA') return invalid('A cobrança não está ATIVA.');
      if (body.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR') existing.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
      existing.revisao += 1;
      return [200, this.cobView(existing)];
    }
    if ((body.valor as { original: string }).original === '0.00') return invalid('O campo cob.valor.original é zero.');
    if (body.chave !== this.receiverKey) return invalid('O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.');
    if (existing) {
      if (existing.status !== 'ATIVA') return invalid('A cobrança já existe e não está no status ATIVA.');
      existing.body = body;
      existing.revisao += 1;
      return [201, this.cobView(existing)];
    }
    this.locations += 1;
    const cob: FakeCob = { txid, revisao: 0, status: 'ATIVA', body, criacao: new Date().toISOString(), location: `${new URL(this.url).host}/qr/v2/${randomBytes(16).toString('hex')}`, locId: this.locations, pix: [] };
    this.cobs.set(txid, cob);
    return [201, this.cobView(cob)];
  }

  private devolucao(method: string, e2eid: string, id: string, body: Record<string, unknown>): [number, unknown] {
    const pix = this.pixByE2e.get(e2eid);
    if (!pix) return [404, { type: `${ERROR_BASE}PixNaoEncontrado`, title: 'Pix não encontrado.', status: 404 }];
    const existing = pix.devolucoes.find((d) => d.id === id);
    const view = ({ reads: _reads, ...d }: FakeDevolucao) => d;
    if (method === 'GET') {
      if (!existing) return [404, { type: `${ERROR_BASE}PixDevolucaoNaoEncontrada`, title: 'Devolução não encontrada.', status: 404 }];
      existing.reads += 1;
      if (existing.status === 'EM_PROCESSAMENTO' && existing.reads > this.readsBeforeSettling) this.settle(e2eid, id, this.devolucaoOutcome);
      return [200, view(existing)];
    }
    const invalid = (detail: string): [number, unknown] => [400, { type: `${ERROR_BASE}PixDevolucaoInvalida`, title: 'Devolução inválida.', status: 400, detail }];
    if (existing) return invalid(`O id ${id} já foi utilizado por outra devolução deste pix.`);
    const cents = (v: string) => BigInt(v.replace('.', ''));
    const refunded = pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + cents(d.valor), 0n);
    if (refunded + cents(body.valor as string) > cents(pix.valor)) return invalid('A devolução excederia o valor do pix originário.');
    const created: FakeDevolucao = { id, rtrId: `D${this.ispb}${new Date().toISOString().replace(/\D/g, '').slice(0, 12)}${alnum(11)}`, valor: body.valor as string, natureza: (body.natureza as string) ?? 'ORIGINAL', horario: { solicitacao: new Date().toISOString() }, status: 'EM_PROCESSAMENTO', reads: 0 };
    pix.devolucoes.push(created);
    return [201, view(created)];
  }
}
