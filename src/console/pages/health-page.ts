/** Health: the database, each MCP server, the extraction pool, the intake queue and the runs waiting or failing. */
import { html } from 'hono/html';
import { formatCount } from '../../core/format';
import type { readQueueState } from '../../store/console-queries';
import { formatDurationMs, formatUtc, type Fragment } from '../layout';

export interface HealthSnapshot {
  database: { ok: boolean; latencyMs?: number; error?: string };
  /** The model endpoint (app/check-model.ts): ok, unreachable or failing since when, the last error. */
  model?: { state: string; model: string; url: string; since?: string; lastError?: string; note?: string };
  mcp?: Array<{ name: string; state: string; tools: number; lastError?: string }>;
  extraction?: { workers: number; maxWorkers: number; queued: number; completed: number; retired: number };
  /** Messages acknowledged to Slack and not yet written to the database. */
  intakeWaiting: number;
  /** Runs this process is answering now. */
  activeRuns: number;
}

export function healthBody(snapshot: HealthSnapshot, queue: Awaited<ReturnType<typeof readQueueState>> | undefined): Fragment {
  const state = (ok: boolean, text: string) => html`<span class="${ok ? 'ok' : 'error'}">${ok ? '✓' : '✗'} ${text}</span>`;
  return html`<h2>Database</h2>
<p>${snapshot.database.ok ? state(true, `answers (${formatDurationMs(snapshot.database.latencyMs)})`) : state(false, `unreachable: ${snapshot.database.error ?? 'no answer'}`)}</p>
${snapshot.model ? modelSection(snapshot.model, state) : ''}<h2>MCP servers</h2>
${
  snapshot.mcp === undefined
    ? html`<p>No MCP servers are configured (MCP_CONFIG).</p>`
    : html`<table><thead><tr><th scope="col">Server</th><th scope="col">State</th><th scope="col" class="num">Tools</th><th scope="col">Last error</th></tr></thead><tbody>
${snapshot.mcp.map((server) => html`<tr><td>${server.name}</td><td>${state(server.state === 'connected' || server.state === 'ready', server.state)}</td><td class="num">${server.tools}</td><td>${server.lastError ?? '—'}</td></tr>`)}
</tbody></table>`
}
<h2>Extraction pool</h2>
${snapshot.extraction ? html`<p>${snapshot.extraction.workers} of ${snapshot.extraction.maxWorkers} worker threads running, ${formatCount(snapshot.extraction.queued)} files waiting, ${formatCount(snapshot.extraction.completed)} read since start${snapshot.extraction.retired ? html`, ${formatCount(snapshot.extraction.retired)} ${snapshot.extraction.retired === 1 ? 'worker' : 'workers'} replaced after a large file` : ''}.</p>` : html`<p>Not reported.</p>`}
<h2>Queue</h2>
<dl class="facts">
<dt>Acknowledged, not yet recorded (this process)</dt><dd>${snapshot.intakeWaiting}</dd>
<dt>Being answered by this process</dt><dd>${snapshot.activeRuns}</dd>
${
  queue
    ? html`<dt>Waiting to start</dt><dd>${queue.pending.runs}${queue.pending.oldest ? ` (oldest since ${formatUtc(queue.pending.oldest)})` : ''}</dd>
<dt>Running (all replicas)</dt><dd>${queue.running.runs}</dd>
<dt>Waiting for approval</dt><dd>${queue.waitingApproval.runs}</dd>
<dt>Approved, waiting to resume</dt><dd>${queue.resumable.runs}</dd>
<dt>Failed in the last hour</dt><dd class="${queue.failedLastHour.runs ? 'error' : ''}">${queue.failedLastHour.runs}${queue.failedLastHour.runs ? html` — <a href="/runs?status=failed">see them</a>` : ''}</dd>
<dt>Refused by a daily limit today</dt><dd>${queue.refusedToday.runs}</dd>`
    : html`<dt>Runs</dt><dd class="error">unknown: the database did not answer</dd>`
}
</dl>`;
}

function modelSection(model: NonNullable<HealthSnapshot['model']>, state: (ok: boolean, text: string) => Fragment): Fragment {
  const since = model.since ? ` since ${formatUtc(model.since)}` : '';
  const text = model.state === 'ok' ? 'answers' : model.state === 'unchecked' ? 'not checked' : `${model.state}${since}`;
  return html`<h2>Model</h2>
<p>${state(model.state === 'ok' || model.state === 'unchecked', text)} — ${model.model} at ${model.url}</p>
${model.lastError ? html`<p>Last error: ${model.lastError}</p>` : ''}${model.note ? html`<p>${model.note}</p>` : ''}
`;
}
