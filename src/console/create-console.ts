/**
 * The operator console: server-rendered pages (hono + hono/html, no build step, no script needed) over the store's
 * read-only queries. It writes two things only: a session (a signed cookie, nothing stored) and a lifted limit.
 * Served in the bot's own process on CONSOLE_HOST:CONSOLE_PORT; its queries are small, indexed and paged, so a
 * console left open and polling does not slow Slack's acknowledgements (bench: load.ack_p99_ms_console_polling).
 */
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { serve, type ServerType } from '@hono/node-server';
import type { Database } from '../store/database';
import type { Logger } from '../logging/logger';
import type { ModelPrices } from '../core/model-prices';
import { priceOf, formatUsd } from '../core/model-prices';
import { formatCount } from '../core/format';
import { findSlackIdsByName, listRuns, listRunsInProgress, readQueueState, readRunDetail, readSlackNames } from '../store/console-queries';
import { readTopSpendersToday, readUsage, readUsageTotals, type UsageGrouping } from '../store/usage-store';
import { liftSpendLimitForToday, listLiftedLimitsToday } from '../store/spend-limit-store';
import { createConsoleAuth, isSecureRequest, requireSession, sameOrigin, SESSION_COOKIE } from './auth';
import { NAV, page, STYLESHEET, type Fragment } from './layout';
import { parseCursor, parseRunFilters, runsBody } from './pages/runs-page';
import { runBody } from './pages/run-page';
import { GROUPINGS, parseUsageRange, usageBody, usageCsv } from './pages/usage-page';
import { healthBody, type HealthSnapshot } from './pages/health-page';
import { LIVE_SCRIPT, liveBody, liveHead, liveRows } from './pages/live-page';
import { signInBody } from './pages/sign-in-page';
import { memoriesBody } from './pages/memories-page';
import { listMemories } from '../store/memory-store';
import { tasksBody } from './pages/tasks-page';
import { listTaskOccurrences, listTasks } from '../store/task-store';
import { createBoundedCache } from '../core/bounded-cache';
import { messageOf } from '../core/errors';
import { createRunOutputs, isRefusal, type ConsoleOutputs } from './run-outputs';

export type { HealthSnapshot };

export interface ConsoleDependencies {
  db: Database;
  logger: Logger;
  /** CONSOLE_TOKEN; undefined: open (loopback only, which config enforces). */
  token?: string;
  trustProxy: boolean;
  prices: ModelPrices;
  limits: { dailyUserUsd: number; dailyChannelUsd: number };
  health(): Promise<HealthSnapshot>;
  now?: () => number;
  /** How often /live/stream sends the runs in progress; default 1 s. */
  liveIntervalMs?: number;
  /** Draws a run's charts and makes its attached files again for its page; without it they are listed, not shown. */
  outputs?: ConsoleOutputs;
}

const RUNS_PER_PAGE = 50;
/** Usage sums and the queue's counts are read at most this often, however many pages are open and polling. */
const SHARED_READ_MS = 5_000;
/** Runs in progress: one read a second, shared by every open Live page. */
const LIVE_READ_MS = 900;

/**
 * Shares one read among requests: concurrent and repeated requests for the same key within `ttlMs` get the same
 * promise, so a console left open in several tabs costs the database (and the bot's CPU) what one tab does.
 */
function createSharedReads(now: () => number) {
  const cache = createBoundedCache<string, { ttl: number; promise: Promise<unknown> }>({ maxEntries: 200, ttlMs: SHARED_READ_MS, now });
  const startedAt = new Map<string, number>();
  return {
    read<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
      const hit = cache.get(key);
      if (hit && now() - (startedAt.get(key) ?? 0) < ttlMs) return hit.promise as Promise<T>;
      const promise = load();
      cache.set(key, { ttl: ttlMs, promise });
      startedAt.set(key, now());
      promise.catch(() => cache.delete(key));
      return promise;
    },
    clear: () => cache.clear(),
  };
}

export function createConsole(deps: ConsoleDependencies): Hono {
  const now = deps.now ?? Date.now;
  const auth = createConsoleAuth(deps.token);
  const shared = createSharedReads(now);
  // The runs in progress with the names of their channels and people: one read a second, however many pages are open.
  const inProgress = () =>
    shared.read('live', LIVE_READ_MS, async () => {
      const rows = await listRunsInProgress(deps.db);
      return { rows, names: await readSlackNames(deps.db, rows.flatMap((row) => [row.channelId, row.userId])) };
    });
  /** A filter may name a channel ("#incidents") or a person ("Ana") instead of giving the id. */
  const idOf = async (kind: 'channel' | 'user', value: string | undefined) => {
    if (!value || /^[A-Z][A-Z0-9]{2,40}$/.test(value)) return value;
    const [id] = await findSlackIdsByName(deps.db, kind, value.replace(kind === 'channel' ? /^#/ : /^@/, ''));
    return id ?? value;
  };
  const runOutputs = deps.outputs ? createRunOutputs(deps.db, deps.outputs, now) : undefined;
  const app = new Hono();
  const session = (c: Context) => getCookie(c, SESSION_COOKIE);
  const render = (c: Context, input: { title: string; current?: string; body: Fragment; head?: Fragment }, status: 200 | 401 | 403 | 404 = 200) =>
    c.html(page({ ...input, signedIn: auth.required && auth.sessionValid(session(c), now()), csrf: auth.csrfToken(session(c)) }), status);

  app.use('*', async (c, next) => {
    await next();
    // Pages are about one organisation's usage: never cached, never framed, scripts only from here.
    c.header('cache-control', 'no-store');
    c.header('x-frame-options', 'DENY');
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'");
  });
  app.use('*', requireSession(auth, now));
  app.onError((error, c) => {
    deps.logger.error('console page failed', { path: new URL(c.req.url).pathname, error });
    return c.html(page({ title: 'Something went wrong', body: html`<p>This page could not be built: ${messageOf(error)}. The bot itself is not affected; try again, or see the Health page.</p>` }), 500);
  });

  app.get('/console.css', (c) => c.body(STYLESHEET, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/live.js', (c) => c.body(LIVE_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }));

  app.get('/sign-in', (c) => {
    if (!auth.required) return c.redirect('/', 303);
    return render(c, { title: 'Sign in', body: signInBody({ next: safeNext(c.req.query('next')), failed: false }) });
  });
  app.post('/sign-in', async (c) => {
    if (!auth.required) return c.redirect('/', 303);
    const form = await c.req.parseBody();
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined);
    if (typeof form.token !== 'string' || !auth.tokenMatches(form.token)) {
      deps.logger.warn('console sign-in refused: wrong token', { from: c.req.header('x-forwarded-for') ?? 'direct' });
      return render(c, { title: 'Sign in', body: signInBody({ next, failed: true }) }, 401);
    }
    const created = auth.newSession(now());
    setCookie(c, SESSION_COOKIE, created.value, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: isSecureRequest(c, deps.trustProxy),
      path: '/',
      maxAge: created.maxAgeSeconds,
    });
    return c.redirect(next, 303);
  });
  app.post('/sign-out', async (c) => {
    const form = await c.req.parseBody();
    if (!sameOrigin(c) || !auth.csrfValid(session(c), typeof form.csrf === 'string' ? form.csrf : undefined)) return c.text('Refused: stale form.', 403);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect(auth.required ? '/sign-in' : '/', 303);
  });

  app.get('/', async (c) => {
    const today = new Date(now()).toISOString().slice(0, 10);
    const totals = await readUsageTotals(deps.db, { from: today, to: today });
    const descriptions: Record<string, string> = {
      '/runs': 'every answer, newest first: what was asked, how long it took, what it cost',
      '/usage': 'runs, tokens and cost per day, channel, user and model; daily limits',
      '/memories': 'what people asked threadwise to remember, for a channel or for themselves',
      '/live': 'answers in progress, updating by themselves',
      '/health': 'database, MCP servers, extraction, queue',
      '/tasks': 'scheduled tasks: schedule, next run, state, and their occurrences’ runs',
    };
    return render(c, {
      title: 'Overview',
      body: html`<p>Today (UTC): ${formatCount(totals.runs)} runs, ${formatCount(totals.inputTokens + totals.outputTokens)} tokens, ${formatUsd(totals.costUsd)}.</p>
<ul>${NAV.map((item) => html`<li><a href="${item.href}">${item.label}</a> — ${descriptions[item.href]}</li>`)}</ul>`,
    });
  });

  app.get('/runs', async (c) => {
    const filters = parseRunFilters(c.req.query());
    const byId = { ...filters, channelId: await idOf('channel', filters.channelId), userId: await idOf('user', filters.userId) };
    const { rows, next } = await listRuns(deps.db, byId, { after: parseCursor(c.req.query('after')), limit: RUNS_PER_PAGE });
    const names = await readSlackNames(deps.db, rows.flatMap((row) => [row.channelId, row.userId]));
    return render(c, { title: 'Runs', current: '/runs', body: runsBody(filters, rows, next, names) });
  });

  app.get('/runs/:id', async (c) => {
    const id = Number(c.req.param('id'));
    const detail = Number.isSafeInteger(id) && id > 0 ? await readRunDetail(deps.db, id) : undefined;
    if (!detail) return render(c, { title: 'Run not found', body: html`<p>There is no run #${c.req.param('id')}. <a href="/runs">Back to the runs</a>.</p>` }, 404);
    return render(c, { title: `Run #${id}`, current: '/runs', body: runBody(detail, { showOutputs: runOutputs !== undefined }) });
  });

  // A chart or file the run posted, made again from what the thread keeps (run-outputs.ts decides what may be served).
  app.get('/runs/:id/posted/:step', async (c) => {
    const runId = Number(c.req.param('id'));
    const stepId = Number(c.req.param('step'));
    const valid = Number.isSafeInteger(runId) && runId > 0 && Number.isSafeInteger(stepId) && stepId > 0;
    if (!runOutputs) return c.text('This console does not draw charts or make files again (it was started without them).', 404);
    const outcome = valid ? await runOutputs.serve(runId, stepId) : { status: 404 as const, sentence: 'No such chart or file: the address names a run and a number.' };
    if (isRefusal(outcome)) return c.text(outcome.sentence, outcome.status);
    const ascii = outcome.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    return c.body(outcome.bytes as Uint8Array<ArrayBuffer>, 200, {
      'content-type': outcome.mimeType,
      'content-disposition': `${outcome.inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(outcome.name)}`,
    });
  });

  const usageView = async (c: Context, notice?: string) => {
    const typed = parseUsageRange(c.req.query(), new Date(now()));
    const range = { ...typed, channelId: await idOf('channel', typed.channelId) };
    const key = `usage:${range.from}:${range.to}:${range.channelId ?? ''}`;
    const [totals, topToday, liftedToday, ...grouped] = await shared.read(key, SHARED_READ_MS, () =>
      Promise.all([
        readUsageTotals(deps.db, range),
        readTopSpendersToday(deps.db),
        listLiftedLimitsToday(deps.db),
        ...GROUPINGS.map((group) => readUsage(deps.db, group, range)),
      ] as const),
    );
    const groups = Object.fromEntries(GROUPINGS.map((group, i) => [group, grouped[i]!])) as Record<UsageGrouping, Awaited<ReturnType<typeof readUsage>>>;
    const unpricedModels = groups.model.map((row) => row.key).filter((model) => model && !priceOf(deps.prices, model));
    const names = await readSlackNames(deps.db, [
      range.channelId,
      ...groups.channel.map((row) => row.key),
      ...groups.user.map((row) => row.key),
      ...topToday.map((row) => row.subjectId),
      ...liftedToday.map((row) => row.subjectId),
      ...(c.req.query('lifted')?.split(' ').slice(1) ?? []),
    ]);
    const lifted = notice?.match(/^Lifted the limit of (user|channel) ([A-Z0-9]+) /);
    const named = lifted && names.has(lifted[2]!) ? notice!.replace(lifted[2]!, `${lifted[1] === 'channel' ? '#' : ''}${names.get(lifted[2]!)}`) : notice;
    return usageBody({ range, totals, groups, limits: deps.limits, topToday, liftedToday, unpricedModels, csrf: auth.csrfToken(session(c)), notice: named, names });
  };
  app.get('/usage', async (c) => render(c, { title: 'Usage', current: '/usage', body: await usageView(c, c.req.query('lifted') ? `Lifted the limit of ${c.req.query('lifted')} until midnight UTC.` : undefined) }));

  app.get('/usage.csv', async (c) => {
    const group = (GROUPINGS as string[]).includes(c.req.query('group') ?? '') ? (c.req.query('group') as UsageGrouping) : 'day';
    const range = parseUsageRange(c.req.query(), new Date(now()));
    const rows = await readUsage(deps.db, group, range, 10_000);
    return c.body(usageCsv(group, rows), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="threadwise-usage-${group}-${range.from}-to-${range.to}.csv"`,
    });
  });

  // The one writing form: lift a user's or a channel's daily limit until midnight UTC.
  app.post('/limits/lift', async (c) => {
    const form = await c.req.parseBody();
    if (!sameOrigin(c) || !auth.csrfValid(session(c), typeof form.csrf === 'string' ? form.csrf : undefined)) {
      return render(c, { title: 'Refused', body: html`<p>This form was stale or did not come from the console. <a href="/usage#limits">Open the Usage page</a> and try again.</p>` }, 403);
    }
    const scope = form.scope === 'channel' ? 'channel' : form.scope === 'user' ? 'user' : undefined;
    const subject = typeof form.subject === 'string' ? form.subject.trim() : '';
    if (!scope || !/^[A-Z0-9]{2,40}$/.test(subject)) {
      return render(c, { title: 'Usage', current: '/usage', body: await usageView(c, 'Give a Slack user id (U…) or channel id (C…) to lift; nothing was changed.') });
    }
    const by = (typeof form.by === 'string' && form.by.trim().slice(0, 80)) || 'console';
    await liftSpendLimitForToday(deps.db, scope, subject, by);
    shared.clear(); // the next Usage page shows the lift
    deps.logger.info('daily limit lifted for today from the console', { scope, subject, by });
    return c.redirect(`/usage?lifted=${encodeURIComponent(`${scope} ${subject}`)}#limits`, 303);
  });

  app.get('/memories', async (c) => {
    const memories = await listMemories(deps.db);
    const names = await readSlackNames(deps.db, memories.flatMap((memory) => [memory.channelId, memory.authorId]));
    return render(c, { title: 'Memories', current: '/memories', body: memoriesBody(memories, names) });
  });
  app.get('/tasks', async (c) => {
    const tasks = await listTasks(deps.db, { states: ['active', 'paused', 'done'], limit: 100 });
    const withOccurrences = await Promise.all(tasks.map(async (task) => ({ task, occurrences: await listTaskOccurrences(deps.db, task.id, 20) })));
    const names = await readSlackNames(deps.db, tasks.flatMap((task) => [task.ownerId, task.channelId]));
    return render(c, { title: 'Tasks', current: '/tasks', body: tasksBody(withOccurrences, names, now()) });
  });

  app.get('/health', async (c) => {
    const [snapshot, queue] = await Promise.all([deps.health(), shared.read('queue', 2_000, () => readQueueState(deps.db)).catch(() => undefined)]);
    return render(c, { title: 'Health', current: '/health', body: healthBody(snapshot, queue) }, 200);
  });

  app.get('/live', async (c) => {
    const { rows, names } = await inProgress();
    return render(c, { title: 'Live', current: '/live', head: liveHead, body: liveBody(rows, new Date(now()), names) });
  });
  app.get('/live/stream', (c) =>
    streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const live = await inProgress().catch(() => undefined);
        if (live) {
          const { rows } = live;
          const rendered = await liveRows(rows, live.names);
          await stream.writeSSE({ event: 'runs', data: JSON.stringify({ rows: String(rendered), count: rows.length, updated: new Date(now()).toISOString().slice(11, 19) }) });
        }
        await stream.sleep(deps.liveIntervalMs ?? 1_000);
      }
    }),
  );

  app.notFound((c) => render(c, { title: 'Not found', body: html`<p>No such page. <a href="/">Back to the overview</a>.</p>` }, 404));
  return app;
}

/** Only paths of this console: an absolute URL in `next` would make sign-in an open redirect. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?!\/)[\w\-/.?=&%]*$/.test(next) ? next : '/';
}

export interface RunningConsole {
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Listens on host:port (0: any free port). Rejects with a sentence naming CONSOLE_PORT when the port is taken. */
export async function startConsole(deps: ConsoleDependencies, where: { host: string; port: number }): Promise<RunningConsole> {
  const app = createConsole(deps);
  const server: ServerType = await new Promise((resolve, reject) => {
    // overrideGlobalObjects off: the adapter must not replace Request/Response that the Slack and OpenAI clients use.
    const created = serve({ fetch: app.fetch, hostname: where.host, port: where.port, overrideGlobalObjects: false }, () => resolve(created));
    created.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `the console's port ${where.port} on ${where.host} is in use (CONSOLE_PORT): pick another port or stop what uses it`
            : `the console could not listen on ${where.host}:${where.port} (CONSOLE_HOST, CONSOLE_PORT): ${error.message}`,
        ),
      ),
    );
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : where.port;
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  return {
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
