/**
 * One configured server's connection for the life of the process: opened at start, and when it cannot be (or is
 * lost later) retried in the background with backoff while its tools answer with a clear failure. One warning when
 * an outage begins and one line when it ends — never one per call. A Streamable HTTP session the server forgot
 * (404 on the old session id) is renewed and the call sent again once: the server refused it unseen, so it did not
 * run. Each call has its own timeout and follows the caller's abort signal (the SDK then tells the server to cancel).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { raceWithSignal } from '../core/abort';
import type { Logger } from '../logging/logger';
import { catalogueServerTools, type McpTool } from './catalogue';
import { describeError, firstLine } from './describe-error';
import type { McpServerConfig } from './mcp-config';
import { openClient, type OpenedClient, type TransportKind } from './open-client';
import { ProcessGroupStdioTransport } from './stdio-transport';

export type ServerState = 'connecting' | 'ready' | 'down' | 'closed';

export interface ServerHealth {
  name: string;
  transport: TransportKind | 'http';
  state: ServerState;
  /** What was configured: the command line of a stdio server, or the URL (configured secrets redacted). */
  target: string;
  /** Tools offered (after disabledTools). */
  tools: number;
  /** Epoch ms the state began. */
  since: number;
  lastError?: string;
  lastErrorAt?: number;
  /** While down: when the next attempt is due. */
  nextRetryAt?: number;
}

export interface RetryPolicy {
  /** First wait after a failed attempt; doubles each time, with ±20 % jitter. */
  initialMs: number;
  maxMs: number;
  /** A call to a down server tries to connect at once when the last attempt is at least this old. */
  onDemandAfterMs: number;
}

export interface ConnectionDeps {
  logger: Logger;
  now: () => number;
  retry: RetryPolicy;
  connectTimeoutMs: number;
  clientInfo: { name: string; version: string };
  closeGraceMs?: number;
  /** A server still silent this long after start gets one warning naming it and its command or URL. */
  slowStartWarnMs: number;
  /** Redacts configured secrets from any text that leaves this module (errors, health, sentences). */
  redact: (text: string) => string;
  /** The tool list changed (connected, reconnected, or the server said so). */
  onToolsChanged: () => void;
}

/** Outcome of a call that reached the point of an answer (a result) or a classified failure. */
export type CallOutcome =
  | { ok: true; result: unknown }
  | { ok: false; kind: 'unavailable' | 'timeout' | 'server_error' | 'cancelled'; reason: string; cause?: unknown };

const ListToolsPage = z.looseObject({
  tools: z.array(z.unknown()).catch([]),
  nextCursor: z.string().optional().catch(undefined),
});
const CallToolAnswer = z.looseObject({});
const MAX_LIST_PAGES = 50;

export class ServerConnection {
  private state: ServerState = 'connecting';
  private since: number;
  private opened?: OpenedClient;
  private generation = 0;
  private connecting?: Promise<boolean>;
  private retryTimer?: NodeJS.Timeout;
  private attempts = 0;
  private lastAttemptAt = 0;
  private lastError?: { reason: string; at: number };
  private nextRetryAt?: number;
  private outageSince?: number;
  private catalogue: McpTool[] = [];
  private readonly logger: Logger;
  private readonly closing = new AbortController();

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.since = deps.now();
    this.logger = deps.logger.child({ mcpServer: config.name });
  }

  get tools(): McpTool[] {
    return this.catalogue;
  }

  /**
   * The first attempt; a failure is reported once and retried in the background, never thrown. A server that has
   * not answered after `slowStartWarnMs` is named in one warning, with its command or URL, while it keeps trying.
   */
  async start(): Promise<void> {
    const slow = setTimeout(() => {
      if (this.state !== 'connecting') return;
      this.logger.warn(
        `MCP server "${this.config.name}" (${this.target}) has not answered in ${formatSeconds(this.deps.slowStartWarnMs)}; its tools will appear when it does`,
      );
    }, this.deps.slowStartWarnMs);
    slow.unref();
    try {
      await this.attempt('start');
    } finally {
      clearTimeout(slow);
    }
  }

  /** The command line or URL, as a person would recognise it in mcp.json (secrets redacted, long ones cut). */
  get target(): string {
    return describeTarget(this.config, this.deps.redact);
  }

  health(): ServerHealth {
    return {
      name: this.config.name,
      transport: this.opened?.kind ?? (this.config.transport.kind === 'stdio' ? 'stdio' : 'http'),
      state: this.state,
      target: this.target,
      tools: this.catalogue.length,
      since: this.since,
      ...(this.lastError ? { lastError: this.lastError.reason, lastErrorAt: this.lastError.at } : {}),
      ...(this.state === 'down' && this.nextRetryAt !== undefined ? { nextRetryAt: this.nextRetryAt } : {}),
    };
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<CallOutcome> {
    if (signal.aborted) return { ok: false, kind: 'cancelled', reason: 'cancelled before it started' };
    for (let renewedSession = false; ; renewedSession = true) {
      const ready = await this.ensureReady(AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]));
      if (!ready) {
        if (signal.aborted) return { ok: false, kind: 'cancelled', reason: 'cancelled while connecting' };
        return { ok: false, kind: 'unavailable', reason: this.connecting ? 'still connecting' : (this.lastError?.reason ?? 'not connected') };
      }
      const { client, transport } = this.opened!;
      const generation = this.generation;
      const hadSession = (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) || this.opened!.kind === 'sse';
      try {
        const result = await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolAnswer, {
          signal,
          timeout: timeoutMs,
        });
        return { ok: true, result };
      } catch (error) {
        if (signal.aborted) return { ok: false, kind: 'cancelled', reason: 'cancelled', cause: error };
        const described = describeError(error, hadSession);
        const reason = this.deps.redact(described.reason);
        if (described.kind === 'session_expired' && !renewedSession) {
          this.logger.info(`MCP server "${this.config.name}": its session expired; starting a new one and sending the call again`);
          await this.renew(generation);
          continue;
        }
        if (described.kind === 'timeout') return { ok: false, kind: 'timeout', reason, cause: error };
        if (described.kind === 'server_error') return { ok: false, kind: 'server_error', reason, cause: error };
        this.lost(generation, reason);
        return { ok: false, kind: 'unavailable', reason, cause: error };
      }
    }
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    clearTimeout(this.retryTimer);
    this.generation++;
    this.closing.abort();
    const opened = this.opened;
    this.opened = undefined;
    await this.connecting?.catch(() => false);
    if (opened) await closeOpened(opened, true);
  }

  /** Connected now, or after one attempt made for this call (when the last one is old enough), or not at all. */
  private async ensureReady(signal: AbortSignal): Promise<boolean> {
    if (this.state === 'ready' && this.opened) return true;
    if (this.state === 'closed') return false;
    if (!this.connecting && this.deps.now() - this.lastAttemptAt < this.deps.retry.onDemandAfterMs) return false;
    const attempt = this.connecting ?? this.attempt('demand');
    return raceWithSignal(attempt, signal).catch(() => false);
  }

  /** One connection attempt at a time; later callers share it. */
  private attempt(reason: 'start' | 'retry' | 'demand' | 'renew'): Promise<boolean> {
    if (this.connecting) return this.connecting;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.lastAttemptAt = this.deps.now();
    const work = this.connect().then(
      () => {
        this.connected(reason);
        return true;
      },
      (error: unknown) => {
        this.failed(reason, error);
        return false;
      },
    );
    this.connecting = work.finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const generation = ++this.generation;
    const previous = this.opened;
    this.opened = undefined;
    // The old session is gone or unreachable; telling the server it is over would only cost a round trip.
    if (previous) await closeOpened(previous, false);
    const opened = await openClient(this.config, {
      timeoutMs: this.deps.connectTimeoutMs,
      clientInfo: this.deps.clientInfo,
      signal: this.closing.signal,
      onStderrLine: (line) => this.logger.debug('MCP server stderr', { line: this.deps.redact(line) }),
      ...(this.deps.closeGraceMs === undefined ? {} : { closeGraceMs: this.deps.closeGraceMs }),
    });
    if (generation !== this.generation) {
      await closeOpened(opened, true);
      throw new Error('closed while connecting');
    }
    const { client } = opened;
    client.onerror = (error) => {
      this.logger.debug('MCP transport error', { reason: this.deps.redact(firstLine(error.message)) });
      // Streamable HTTP: hiccups of the optional GET stream are not outages; calls decide that. The older SSE
      // protocol cannot recover a session: its stream reconnects into a new, uninitialised one, so start afresh.
      if (opened.kind === 'sse' && this.opened === opened) this.lost(generation, this.deps.redact(describeError(error).reason));
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void this.refreshTools(client, generation);
    });
    const listed = await listTools(client, this.deps.connectTimeoutMs, this.closing.signal).catch(async (error: unknown) => {
      const exit = this.exitReason(opened);
      await closeOpened(opened, true);
      throw exit ? new Error(exit, { cause: error }) : error;
    });
    if (generation !== this.generation) {
      await closeOpened(opened, true);
      throw new Error('closed while connecting');
    }
    const exitedMeanwhile = this.exitReason(opened);
    if (exitedMeanwhile) {
      await closeOpened(opened, true);
      throw new Error(exitedMeanwhile);
    }
    client.onclose = () => {
      if (generation === this.generation) this.lost(generation, this.exitReason(opened) ?? 'the connection closed');
    };
    this.opened = opened;
    this.useTools(listed);
  }

  private connected(reason: 'start' | 'retry' | 'demand' | 'renew'): void {
    this.attempts = 0;
    this.nextRetryAt = undefined;
    const wasDown = this.outageSince;
    this.outageSince = undefined;
    this.setState('ready');
    const via = this.opened?.kind;
    const count = this.catalogue.length;
    if (wasDown !== undefined) {
      const seconds = Math.max(0, Math.round((this.deps.now() - wasDown) / 1000));
      this.logger.info(`MCP server "${this.config.name}" is back after ${seconds} s (${count} tools, ${via})`);
    } else if (reason === 'start') {
      this.logger.info(`MCP server "${this.config.name}" connected (${count} tools, ${via})`);
    }
    this.deps.onToolsChanged();
  }

  private failed(reason: 'start' | 'retry' | 'demand' | 'renew', error: unknown): void {
    if (this.state === 'closed') return;
    const why = this.deps.redact(describeError(error).reason);
    this.lastError = { reason: why, at: this.deps.now() };
    this.opened = undefined;
    if (this.outageSince === undefined) {
      this.outageSince = this.deps.now();
      const first =
        reason === 'start'
          ? `MCP server "${this.config.name}" (${this.target}) cannot be reached at start: ${why}; its tools are offered once it answers, retrying in the background`
          : `MCP server "${this.config.name}" (${this.target}) is down: ${why}; its tools answer with an error until it is back, retrying in the background`;
      this.logger.warn(first, { reason: why });
    } else {
      this.logger.debug(`MCP server "${this.config.name}" still down`, { reason: why, attempt: this.attempts + 1 });
    }
    this.setState('down');
    this.scheduleRetry();
  }

  /** A call or the transport found the connection gone. Only the first report of a generation counts. */
  private lost(generation: number, reason: string): void {
    if (generation !== this.generation || this.state === 'closed' || this.state === 'down') return;
    const opened = this.opened;
    this.opened = undefined;
    this.generation++;
    if (opened) void closeOpened(opened, false);
    this.failed('retry', new Error(reason));
  }

  private async renew(generation: number): Promise<void> {
    if (generation !== this.generation) return; // someone renewed it already
    await this.attempt('renew');
  }

  private scheduleRetry(): void {
    const { initialMs, maxMs } = this.deps.retry;
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.attempts, 20));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.attempts++;
    this.nextRetryAt = this.deps.now() + delay;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.attempt('retry'), delay);
    this.retryTimer.unref();
  }

  private async refreshTools(client: Client, generation: number): Promise<void> {
    try {
      const listed = await listTools(client, this.deps.connectTimeoutMs, this.closing.signal);
      if (generation !== this.generation) return;
      this.useTools(listed);
      this.logger.info(`MCP server "${this.config.name}" changed its tools (${this.catalogue.length} now)`);
      this.deps.onToolsChanged();
    } catch (error) {
      this.logger.warn(`MCP server "${this.config.name}" announced new tools but could not list them: ${this.deps.redact(describeError(error).reason)}`);
    }
  }

  private useTools(listed: unknown[]): void {
    const catalogue = catalogueServerTools(this.config, listed);
    this.catalogue = catalogue.tools;
    if (catalogue.repaired.length > 0) {
      this.logger.info(`MCP server "${this.config.name}": ${catalogue.repaired.length} tool schema(s) repaired for the model`, {
        repaired: catalogue.repaired.map(({ tool, changes }) => `${tool}: ${changes.join('; ')}`),
      });
    }
    if (this.config.trustAnnotations) {
      const trusted = catalogue.tools.filter((tool) => tool.approvedByAnnotation).map((tool) => tool.tool);
      this.logger.info(
        `MCP server "${this.config.name}": trustAnnotations lets ${trusted.length} tool(s) it marks read-only run without asking${trusted.length ? `: ${trusted.join(', ')}` : ''}`,
      );
    }
    if (catalogue.skipped.length > 0) {
      this.logger.warn(`MCP server "${this.config.name}" listed tools that cannot be offered: ${catalogue.skipped.join('; ')}`);
    }
    for (const setting of ['disabledTools', 'autoApprove'] as const) {
      const unmatched = catalogue.unmatched[setting];
      if (unmatched.length > 0) {
        this.logger.warn(
          `mcp.json: server "${this.config.name}" has ${setting} entries naming no tool it offers: ${unmatched.map((t) => `"${t}"`).join(', ')}; check the spelling (its tools: ${listed.length ? catalogue.tools.map((t) => t.tool).join(', ') : 'none'})`,
        );
      }
    }
  }

  private setState(state: ServerState): void {
    if (this.state === state) return;
    this.state = state;
    this.since = this.deps.now();
  }

  private exitReason(opened: OpenedClient): string | undefined {
    const exit = opened.transport instanceof ProcessGroupStdioTransport ? opened.transport.describeExit() : undefined;
    return exit ? `the program ${exit}` : undefined;
  }
}

async function listTools(client: Client, timeoutMs: number, signal: AbortSignal): Promise<unknown[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const answer = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ListToolsPage, { timeout: timeoutMs, signal });
    tools.push(...answer.tools);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

async function closeOpened({ client, transport }: OpenedClient, endSession: boolean): Promise<void> {
  if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    // Polite, not required: tell the server the session is over, without waiting long for it.
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }
  await client.close().catch(() => {});
  await transport.close().catch(() => {});
}

const MAX_TARGET_CHARS = 200;

/**
 * The command line or URL as a person recognises it from mcp.json, safe to show in a log or in Slack (`/ask tools`):
 * configured secrets redacted, a URL without its credentials or query, and arguments that look like credentials
 * (`--token=…`, the value after `--api-key`, a long random string) elided — mcp.json may hold secrets written in
 * place rather than as ${VAR}.
 */
function describeTarget(config: McpServerConfig, redact: (text: string) => string): string {
  const { transport } = config;
  let text: string;
  if (transport.kind === 'http') {
    try {
      const url = new URL(transport.url);
      text = `${url.origin}${url.pathname}${url.search ? '?…' : ''}`;
    } catch {
      text = 'the configured URL';
    }
  } else {
    const args = transport.args.map((arg, i) => {
      if (SECRET_FLAG.test(transport.args[i - 1] ?? '') && !arg.startsWith('-') && !(transport.args[i - 1] ?? '').includes('=')) return '…';
      const assigned = /^(-{0,2}[\w.-]+)=(.+)$/.exec(arg);
      if (assigned && SECRET_NAME.test(assigned[1]!)) return `${assigned[1]}=…`;
      if (/^[A-Za-z0-9_-]{24,}$/.test(arg) && /\d/.test(arg) && /[A-Za-z]/.test(arg)) return '…';
      return /[\s"']/.test(arg) || arg === '' ? JSON.stringify(arg) : arg;
    });
    text = [transport.command, ...args].join(' ');
  }
  const redacted = redact(text);
  return redacted.length > MAX_TARGET_CHARS ? `${redacted.slice(0, MAX_TARGET_CHARS - 1)}…` : redacted;
}

const SECRET_NAME = /token|key|secret|passw|auth|cred|cookie|session/i;
const SECRET_FLAG = /^-{1,2}[\w-]*(token|key|secret|passw|auth|cred|cookie|session)[\w-]*$/i;

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
