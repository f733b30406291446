/** Runs: newest first, filtered by channel, user, status, model and day; paged by cursor. */
import { html } from 'hono/html';
import { formatCount } from '../../core/format';
import { formatUsd } from '../../core/model-prices';
import type { RunCursor, RunFilters, RunListRow } from '../../store/console-queries';
import { formatDurationMs, formatUtc, type Fragment } from '../layout';
import { channelLabel, personLabel, type Names } from '../names';

const RUN_STATUSES = ['pending', 'running', 'waiting_approval', 'resumable', 'done', 'failed', 'cancelled', 'refused'] as const;

/** The filters as the form sends them; anything malformed is ignored rather than refused (it is a read). */
export function parseRunFilters(query: Record<string, string | undefined>): RunFilters {
  const text = (value: string | undefined) => value?.trim() || undefined;
  const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);
  const status = text(query.status);
  return {
    channelId: text(query.channel),
    userId: text(query.user),
    status: status && (RUN_STATUSES as readonly string[]).includes(status) ? status : undefined,
    model: text(query.model),
    from: day(query.from),
    to: day(query.to),
  };
}

export function parseCursor(value: string | undefined): RunCursor | undefined {
  const match = value?.match(/^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_(\d+)$/);
  return match ? { createdAt: match[1]!, id: Number(match[2]) } : undefined;
}

/** `filters` as typed (a "#name" stays a name in the form); `names`: of the rows' channels and people. */
export function runsBody(filters: RunFilters, rows: RunListRow[], next: RunCursor | undefined, names: Names = new Map()): Fragment {
  const query = new URLSearchParams(
    Object.entries({ channel: filters.channelId, user: filters.userId, status: filters.status, model: filters.model, from: filters.from, to: filters.to }).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  if (next) query.set('after', `${next.createdAt}_${next.id}`);
  return html`<form class="filters" method="get" action="/runs" role="search" aria-label="Filter runs">
<label>Channel <input name="channel" value="${filters.channelId ?? ''}" placeholder="#incidents or C0123ABCD"></label>
<label>User <input name="user" value="${filters.userId ?? ''}" placeholder="Ana or U0123ABCD"></label>
<label>Status <select name="status"><option value="">any</option>${RUN_STATUSES.map(
    (status) => html`<option value="${status}"${filters.status === status ? html` selected` : ''}>${status.replace('_', ' ')}</option>`,
  )}</select></label>
<label>Model <input name="model" value="${filters.model ?? ''}" placeholder="gpt-5-mini"></label>
<label>From (UTC day) <input type="date" name="from" value="${filters.from ?? ''}"></label>
<label>To (UTC day) <input type="date" name="to" value="${filters.to ?? ''}"></label>
<button type="submit">Filter</button> <a href="/runs">Clear</a>
</form>
<table>
<caption>${rows.length === 0 ? 'No runs match these filters.' : `Runs, newest first (${rows.length} on this page)`}</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Asked</th><th scope="col">Channel</th><th scope="col">User</th><th scope="col">Question</th><th scope="col">Status</th>
<th scope="col" class="num">Duration</th><th scope="col" class="num">Iterations</th><th scope="col" class="num">Tokens in / out</th><th scope="col" class="num">Cost</th><th scope="col">Feedback</th></tr></thead>
<tbody>
${rows.map(
  (run) => html`<tr>
<td><a href="/runs/${run.id}">#${run.id}</a></td>
<td>${formatUtc(run.createdAt)}</td>
<td>${channelLabel(names, run.channelId)}</td>
<td>${personLabel(names, run.userId)}</td>
<td>${run.question ?? '—'}</td>
<td class="status-${run.status}">${run.status.replace('_', ' ')}</td>
<td class="num">${formatDurationMs(run.durationMs)}</td>
<td class="num">${run.iterations}</td>
<td class="num">${formatCount(run.inputTokens)} / ${formatCount(run.outputTokens)}</td>
<td class="num">${formatUsd(run.costUsd)}</td>
<td>${run.positive || run.negative ? `${run.positive} helpful, ${run.negative} not` : '—'}</td>
</tr>`,
)}
</tbody>
</table>
${next ? html`<p><a href="/runs?${query.toString()}" rel="next">Older runs →</a></p>` : html`<p>End of the list.</p>`}`;
}
