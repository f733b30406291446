/**
 * The model endpoint, checked at start as Slack is (check-slack.ts), with one cheap call: GET /models/{model}.
 * A key the endpoint refuses (401/403) or a model it says it does not have (404 naming the model) stops start-up
 * with one sentence naming OPENAI_API_KEY or OPENAI_MODEL: nothing would ever be answered. An endpoint that cannot
 * be reached is one warning naming OPENAI_BASE_URL, and the bot starts anyway: a model outage must not keep it down.
 *
 * Servers that do not implement /models/{model} (llama.cpp, vLLM, LM Studio answer 404 for the route itself) are
 * asked for the list (GET /models) instead; a model missing from a list is only a warning, since some servers
 * (llama.cpp) answer to any model name whatever they list. A 404 for both means the base URL is probably missing
 * its /v1: said as a warning too. Nothing here ever stops start-up on a guess.
 *
 * After start, the state follows the real calls (record) and, while the endpoint is down, a re-check every 30 s:
 * /healthz and the console's Health page show it (ok / unreachable since … / the last error).
 */
import { codeOf, messageOf } from '../core/errors';
import { ModelError } from '../core/chat';
import { noConnectionReason } from './openai';
import { StartupError } from './startup-error';

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export type ModelCheck =
  | { kind: 'ok'; note?: string }
  | { kind: 'refused_key'; status: number; code?: string }
  | { kind: 'unknown_model' }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'failing'; status: number; detail: string }
  | { kind: 'unchecked'; why: string };

export interface ModelEndpoint {
  baseUrl?: string;
  apiKey: string;
  model: string;
  /** For both calls together; default 5 s. */
  timeoutMs?: number;
}

/** One GET /models/{model}, and GET /models when the first says nothing about the model. Never throws. */
export async function probeModel(endpoint: ModelEndpoint): Promise<ModelCheck> {
  const base = (endpoint.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const signal = AbortSignal.timeout(endpoint.timeoutMs ?? 5_000);
  const headers = { authorization: `Bearer ${endpoint.apiKey}`, accept: 'application/json' };
  try {
    const one = await get(`${base}/models/${encodeURIComponent(endpoint.model)}`, headers, signal);
    if (one.status === 200) return { kind: 'ok' };
    const judged = judgeRefusal(one);
    if (judged) return judged;
    if (one.status === 404 && saysModelIsMissing(one.body, endpoint.model)) return { kind: 'unknown_model' };
    if (one.status !== 404 && one.status !== 405 && one.status !== 400) return failing(one);
    // The route itself may be what is missing: ask for the list.
    const list = await get(`${base}/models`, headers, signal);
    const refused = judgeRefusal(list);
    if (refused) return refused;
    if (list.status === 404) {
      return { kind: 'unchecked', why: `it answered 404 for ${base}/models too: check that OPENAI_BASE_URL is the API's base (it usually ends in /v1)` };
    }
    if (list.status !== 200) return list.status >= 500 || list.status === 429 ? failing(list) : { kind: 'unchecked', why: `it answered HTTP ${list.status} for ${base}/models` };
    const served = modelIdsOf(list.body);
    if (!served) return { kind: 'unchecked', why: `what it answered for ${base}/models is not a list of models` };
    if (served.includes(endpoint.model)) return { kind: 'ok' };
    const shown = served.slice(0, 5).join(', ');
    return { kind: 'ok', note: `OPENAI_MODEL "${endpoint.model}" is not among the models it lists (${shown || 'none'}${served.length > 5 ? ', …' : ''}); if answers fail, set OPENAI_MODEL to one of them` };
  } catch (error) {
    return { kind: 'unreachable', reason: unreachableReason(error) };
  }
}

interface Answer {
  status: number;
  body: unknown;
}

async function get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  const response = await fetch(url, { headers, signal });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: an HTML error page, a plain "Not Found"
  }
  return { status: response.status, body };
}

/** 401/403 is the key, except a restricted key that may not list models (OpenAI's "Missing scopes: api.model.read"). */
function judgeRefusal(answer: Answer): ModelCheck | undefined {
  if (answer.status !== 401 && answer.status !== 403) return undefined;
  if (/missing scopes?|insufficient permissions/i.test(errorMessageOf(answer.body))) {
    return { kind: 'unchecked', why: 'the key may not read the model list (a restricted key); it was not checked' };
  }
  const code = errorCodeOf(answer.body);
  return { kind: 'refused_key', status: answer.status, ...(code ? { code } : {}) };
}

function failing(answer: Answer): ModelCheck {
  const message = errorMessageOf(answer.body);
  return { kind: 'failing', status: answer.status, detail: message ? `HTTP ${answer.status}: ${message.slice(0, 200)}` : `HTTP ${answer.status}` };
}

/** OpenAI says model_not_found; Ollama and others name the model in the message. A bare "Not Found" is the route. */
function saysModelIsMissing(body: unknown, model: string): boolean {
  if (errorCodeOf(body) === 'model_not_found') return true;
  const message = errorMessageOf(body);
  return message.includes(model) && /not (be )?found|does not exist|no such|unknown/i.test(message);
}

function errorMessageOf(body: unknown): string {
  if (typeof body === 'string') return body.trim().slice(0, 300);
  const error = (body as { error?: unknown; message?: unknown; detail?: unknown } | null)?.error ?? body;
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown; detail?: unknown } | null)?.message ?? (error as { detail?: unknown } | null)?.detail;
  return typeof message === 'string' ? message : '';
}

function errorCodeOf(body: unknown): string | undefined {
  const code = ((body as { error?: { code?: unknown } } | null)?.error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code ? code : undefined;
}

function modelIdsOf(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown; models?: unknown } | null)?.data ?? (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(data)) return undefined;
  return data.flatMap((entry) => (typeof entry?.id === 'string' ? [entry.id] : typeof entry?.name === 'string' ? [entry.name] : []));
}

function unreachableReason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer within 5 s';
  return noConnectionReason(error) ?? codeOf((error as { cause?: unknown })?.cause) ?? messageOf((error as { cause?: unknown })?.cause ?? error);
}

/** What /healthz and the console show about the model. */
interface ModelHealthReport {
  state: 'ok' | 'unreachable' | 'failing' | 'unchecked';
  model: string;
  url: string;
  /** When the current state began (ISO); absent for ok. */
  since?: string;
  /** The last failure, in a sentence. */
  lastError?: string;
  note?: string;
}

export interface ModelHealth {
  report(): ModelHealthReport;
  /** A model call's outcome: nothing for success, its error otherwise. */
  record(error?: unknown): void;
  close(): void;
}

export interface ModelCheckOptions {
  /** A start-up line for the person starting it; `warn` for what they should know but does not stop it. */
  say(sentence: string, level?: 'warn'): void;
  now?: () => number;
  /** While the endpoint is down, how often it is checked again; default 30 s. */
  recheckMs?: number;
  probe?: (endpoint: ModelEndpoint) => Promise<ModelCheck>;
}

/**
 * Checks the model before the bot starts: throws a StartupError naming the variable for a refused key or an
 * unknown model; says a warning and returns for anything else. The returned health keeps the state up to date.
 */
export async function checkModelAtStart(endpoint: ModelEndpoint, options: ModelCheckOptions): Promise<ModelHealth> {
  const url = endpoint.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const now = options.now ?? Date.now;
  const probe = options.probe ?? probeModel;
  options.say(`checking the model ${endpoint.model} at ${url}…`);
  const checked = await probe(endpoint);
  if (checked.kind === 'refused_key') {
    throw new StartupError(
      `the model endpoint at ${url} refused OPENAI_API_KEY (HTTP ${checked.status}${checked.code ? `, ${checked.code}` : ''}): check the key, and that OPENAI_BASE_URL is the endpoint it belongs to.`,
    );
  }
  if (checked.kind === 'unknown_model') {
    throw new StartupError(`the model endpoint at ${url} has no model "${endpoint.model}" (OPENAI_MODEL): set OPENAI_MODEL to a model it serves.`);
  }

  let report: ModelHealthReport = { state: 'ok', model: endpoint.model, url };
  const set = (next: Omit<ModelHealthReport, 'model' | 'url'>) => {
    report = { model: endpoint.model, url, ...next };
  };
  const since = () => new Date(now()).toISOString();
  const describeCheck = (result: ModelCheck): Omit<ModelHealthReport, 'model' | 'url'> | undefined => {
    switch (result.kind) {
      case 'unreachable':
        return { state: 'unreachable', since: report.state === 'unreachable' ? report.since : since(), lastError: `could not reach it (${result.reason})` };
      case 'failing':
        return { state: 'failing', since: report.state === 'failing' ? report.since : since(), lastError: result.detail };
      case 'unchecked':
        return { state: 'unchecked', note: result.why };
      case 'ok':
        return { state: 'ok', ...(result.note ? { note: result.note } : {}) };
      default:
        return undefined;
    }
  };
  set(describeCheck(checked)!);
  if (checked.kind === 'unreachable') {
    options.say(`could not reach the model at OPENAI_BASE_URL=${url} (${checked.reason}); starting anyway, and questions will fail until it answers.`, 'warn');
  } else if (checked.kind === 'failing') {
    options.say(`the model endpoint at OPENAI_BASE_URL=${url} failed its check (${checked.detail}); starting anyway.`, 'warn');
  } else if (checked.kind === 'unchecked' && !checked.why.includes('restricted key')) {
    options.say(`the model endpoint at OPENAI_BASE_URL=${url} could not say whether it has ${endpoint.model}: ${checked.why}; starting anyway.`, 'warn');
  } else if (checked.kind === 'ok' && checked.note) {
    options.say(`${checked.note}.`, 'warn');
  }

  // While it is down, look again now and then, so /healthz turns back to ok without waiting for a question.
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const recheckMs = options.recheckMs ?? 30_000;
  const scheduleRecheck = () => {
    if (closed || timer || (report.state !== 'unreachable' && report.state !== 'failing')) return;
    timer = setTimeout(async () => {
      timer = undefined;
      const again = await probe(endpoint);
      if (closed) return;
      if (again.kind === 'refused_key' || again.kind === 'unknown_model') {
        set({ state: 'failing', since: since(), lastError: again.kind === 'refused_key' ? `it refused OPENAI_API_KEY (HTTP ${again.status})` : `it has no model "${endpoint.model}" (OPENAI_MODEL)` });
      } else {
        set(describeCheck(again)!);
      }
      scheduleRecheck();
    }, recheckMs);
    timer.unref();
  };
  scheduleRecheck();

  return {
    report: () => report,
    record(error) {
      if (error === undefined) {
        if (report.state !== 'ok') set({ state: 'ok' });
        return;
      }
      if (!(error instanceof ModelError)) return;
      if (error.kind === 'unreachable') {
        set({ state: 'unreachable', since: report.state === 'unreachable' ? report.since : since(), lastError: error.message });
        scheduleRecheck();
      } else if (error.kind === 'unavailable' || error.kind === 'auth') {
        set({ state: 'failing', since: report.state === 'failing' ? report.since : since(), lastError: error.message });
        scheduleRecheck();
      } else {
        // The endpoint answered: the model is up; the request was what it refused.
        report = { ...report, lastError: error.message };
      }
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
