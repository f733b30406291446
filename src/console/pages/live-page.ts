/**
 * Live: the runs in progress. Without JavaScript the page refreshes itself every two seconds; with it, /live.js
 * listens to /live/stream (server-sent events) and swaps in the rows the server rendered — no reload.
 */
import { html } from 'hono/html';
import type { listRunsInProgress } from '../../store/console-queries';
import { formatDurationMs, type Fragment } from '../layout';
import { channelLabel, personLabel, type Names } from '../names';
import { describeRunNow } from '../run-now';

type LiveRow = Awaited<ReturnType<typeof listRunsInProgress>>[number];

export const liveHead: Fragment = html`<noscript><meta http-equiv="refresh" content="2"></noscript><script src="/live.js" defer></script>`;

export function liveBody(rows: LiveRow[], updatedAt: Date, names: Names = new Map()): Fragment {
  return html`<p id="live-updated" aria-live="polite">Updated ${updatedAt.toISOString().slice(11, 19)} UTC · ${rows.length} in progress</p>
<table><caption>Runs in progress, oldest first</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Channel</th><th scope="col">User</th><th scope="col">Question</th><th scope="col">Now</th><th scope="col" class="num">Elapsed</th><th scope="col" class="num">Attempt</th><th scope="col">Replica</th></tr></thead>
<tbody id="live-rows">${liveRows(rows, names)}</tbody></table>`;
}

export function liveRows(rows: LiveRow[], names: Names = new Map()): Fragment {
  if (rows.length === 0) return html`<tr><td colspan="9">Nothing in progress.</td></tr>`;
  return html`${rows.map(
    (run) => html`<tr><td><a href="/runs/${run.id}">#${run.id}</a></td><td>${run.status.replace('_', ' ')}</td><td>${channelLabel(names, run.channelId)}</td><td>${personLabel(names, run.userId)}</td><td>${run.question ?? '—'}</td>
<td>${describeRunNow(run, run.now) ?? '—'}</td>
<td class="num">${formatDurationMs(run.elapsedMs)}</td><td class="num">${run.attempts}</td><td>${run.leaseOwner ?? '—'}</td></tr>`,
  )}`;
}

/** Served at /live.js: the only script of the console, an enhancement the page works without. */
export const LIVE_SCRIPT = `
(() => {
  const rows = document.getElementById('live-rows');
  const updated = document.getElementById('live-updated');
  if (!rows || !window.EventSource) return;
  const source = new EventSource('/live/stream');
  source.addEventListener('runs', (event) => {
    const data = JSON.parse(event.data);
    rows.innerHTML = data.rows;
    updated.textContent = 'Updated ' + data.updated + ' UTC · ' + data.count + ' in progress';
  });
})();
`;
