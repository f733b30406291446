/** Usage: runs, tokens and cost per day, channel, user and model, as charts and tables, with CSV; and the daily limits. */
import { html } from 'hono/html';
import { formatCount } from '../../core/format';
import { formatUsd } from '../../core/model-prices';
import type { UsageGrouping, UsageRange, UsageRow } from '../../store/usage-store';
import { barChart } from '../bar-chart';
import type { Fragment } from '../layout';
import { channelLabel, channelText, NONE, personLabel, personText, type Names } from '../names';

export const GROUPINGS: UsageGrouping[] = ['day', 'channel', 'user', 'model'];
const HEADINGS: Record<UsageGrouping, string> = { day: 'Per day', channel: 'Per channel', user: 'Per user', model: 'Per model' };

export interface UsageView {
  range: UsageRange;
  totals: UsageRow;
  groups: Record<UsageGrouping, UsageRow[]>;
  limits: { dailyUserUsd: number; dailyChannelUsd: number };
  topToday: Array<{ scope: 'user' | 'channel'; subjectId: string; costUsd: number; runs: number }>;
  liftedToday: Array<{ scope: string; subjectId: string; liftedBy: string }>;
  unpricedModels: string[];
  csrf: string;
  /** Set after a lift: what was lifted. */
  notice?: string;
  /** Names of the channels and people on the page, by id. */
  names?: Names;
}

/** Range from the query, default the last 14 UTC days. */
export function parseUsageRange(query: Record<string, string | undefined>, now: Date): UsageRange {
  const day = (value: string | undefined) => (value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);
  const to = day(query.to) ?? now.toISOString().slice(0, 10);
  const from = day(query.from) ?? new Date(Date.parse(`${to}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10);
  return { from, to, channelId: query.channel?.trim() || undefined };
}

export function usageBody(view: UsageView): Fragment {
  const { range } = view;
  const names = view.names ?? new Map<string, string>();
  const subject = (scope: string, id: string) => (scope === 'channel' ? channelLabel(names, id) : personLabel(names, id));
  const subjectText = (scope: string, id: string) => (scope === 'channel' ? channelText(names, id) : personText(names, id));
  const hint = (id: string) => (id && names.has(id) ? id : undefined);
  const csv = (group: UsageGrouping) => `/usage.csv?${new URLSearchParams({ group, from: range.from, to: range.to, ...(range.channelId ? { channel: range.channelId } : {}) })}`;
  return html`${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : ''}
<form class="filters" method="get" action="/usage" aria-label="Usage range">
<label>From (UTC day) <input type="date" name="from" value="${range.from}"></label>
<label>To (UTC day) <input type="date" name="to" value="${range.to}"></label>
<label>Channel (optional) <input name="channel" value="${range.channelId ?? ''}" placeholder="#incidents or C0123ABCD"></label>
<button type="submit">Show</button>
</form>
<p>${range.from} to ${range.to}${range.channelId ? html` in ${channelLabel(names, range.channelId)}` : ''}: <strong>${formatCount(view.totals.runs)}</strong> ${view.totals.runs === 1 ? 'run' : 'runs'},
<strong>${formatCount(view.totals.inputTokens + view.totals.outputTokens)}</strong> tokens (${formatCount(view.totals.inputTokens)} in, ${formatCount(view.totals.outputTokens)} out),
<strong>${formatUsd(view.totals.costUsd)}</strong>${view.totals.refused ? `, ${formatCount(view.totals.refused)} questions refused by a limit` : ''}.</p>
${view.unpricedModels.length ? html`<p class="notice">No price is known for ${view.unpricedModels.join(', ')}: its runs count as $0. Add it to MODEL_PRICES.</p>` : ''}
<div class="charts">
${barChart({ id: 'cost-day', title: 'Cost per day (USD)', description: `Cost of the runs of each UTC day from ${range.from} to ${range.to}.`, bars: view.groups.day.map((r) => ({ label: r.key, value: r.costUsd })), format: formatUsd })}
${barChart({ id: 'tokens-day', title: 'Tokens per day', description: 'Input plus output tokens of each UTC day.', bars: view.groups.day.map((r) => ({ label: r.key, value: r.inputTokens + r.outputTokens })), format: formatCount })}
${barChart({ id: 'tokens-channel', title: 'Tokens per channel', description: 'Input plus output tokens per channel, most expensive first.', bars: view.groups.channel.map((r) => ({ label: channelText(names, r.key), hint: hint(r.key), value: r.inputTokens + r.outputTokens })), format: formatCount })}
${barChart({ id: 'cost-user', title: 'Cost per user (USD)', description: 'Cost per user, most expensive first.', bars: view.groups.user.map((r) => ({ label: personText(names, r.key), hint: hint(r.key), value: r.costUsd })), format: formatUsd })}
${barChart({ id: 'cost-model', title: 'Cost per model (USD)', description: 'Cost per model.', bars: view.groups.model.map((r) => ({ label: r.key, value: r.costUsd })), format: formatUsd })}
</div>
${GROUPINGS.map((group) => usageTable(group, view.groups[group], csv(group), names))}
<h2 id="limits">Daily limits</h2>
<p>Per user: ${view.limits.dailyUserUsd > 0 ? formatUsd(view.limits.dailyUserUsd) : 'none'} · per channel: ${view.limits.dailyChannelUsd > 0 ? formatUsd(view.limits.dailyChannelUsd) : 'none'} (US dollars per UTC day; DAILY_LIMIT_USER, DAILY_LIMIT_CHANNEL). A limit lifted here holds until midnight UTC, on every replica.</p>
<table><caption>Highest spend today (UTC)</caption>
<thead><tr><th scope="col">Who</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Cost</th><th scope="col">Limit</th><th scope="col">Action</th></tr></thead><tbody>
${view.topToday.map((row) => {
  const limit = row.scope === 'user' ? view.limits.dailyUserUsd : view.limits.dailyChannelUsd;
  const lifted = view.liftedToday.some((l) => l.scope === row.scope && l.subjectId === row.subjectId);
  return html`<tr><td>${row.scope} ${subject(row.scope, row.subjectId)}</td><td class="num">${formatCount(row.runs)}</td><td class="num">${formatUsd(row.costUsd)}</td>
<td>${limit > 0 ? `${Math.round((row.costUsd / limit) * 100)}% of ${formatUsd(limit)}` : 'no limit'}${lifted ? ' (lifted today)' : ''}</td>
<td>${limit > 0 && !lifted ? liftForm(row.scope, row.subjectId, subjectText(row.scope, row.subjectId), view.csrf) : ''}</td></tr>`;
})}
</tbody></table>
<form class="filters inline" method="post" action="/limits/lift" aria-label="Lift a limit for today">
<input type="hidden" name="csrf" value="${view.csrf}">
<label>Scope <select name="scope"><option value="user">user</option><option value="channel">channel</option></select></label>
<label>User or channel id <input name="subject" required pattern="[A-Z0-9]+" placeholder="U0123ABCD"></label>
<label>Your name (recorded) <input name="by" placeholder="ops on call"></label>
<button type="submit">Lift for today</button>
</form>
${view.liftedToday.length ? html`<p>Lifted today: ${view.liftedToday.map((l, i) => html`${i ? ', ' : ''}${l.scope} ${subject(l.scope, l.subjectId)} (by ${l.liftedBy})`)}.</p>` : ''}`;
}

function liftForm(scope: string, subject: string, label: string, csrf: string): Fragment {
  return html`<form method="post" action="/limits/lift"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="scope" value="${scope}"><input type="hidden" name="subject" value="${subject}"><button type="submit" title="${scope} ${subject}">Lift ${scope} ${label} for today</button></form>`;
}

function usageTable(group: UsageGrouping, rows: UsageRow[], csvHref: string, names: Names): Fragment {
  const key = (value: string) => (group === 'channel' ? channelLabel(names, value) : group === 'user' ? personLabel(names, value) : value || NONE);
  return html`<h2>${HEADINGS[group]}</h2>
<p><a href="${csvHref}" download>Download ${HEADINGS[group].toLowerCase()} as CSV</a></p>
<table><thead><tr><th scope="col">${group}</th><th scope="col" class="num">Runs</th><th scope="col" class="num">Refused</th><th scope="col" class="num">Input tokens</th><th scope="col" class="num">Output tokens</th><th scope="col" class="num">Cost</th></tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr><td>${key(row.key)}</td><td class="num">${formatCount(row.runs)}</td><td class="num">${formatCount(row.refused)}</td><td class="num">${formatCount(row.inputTokens)}</td><td class="num">${formatCount(row.outputTokens)}</td><td class="num">${formatUsd(row.costUsd)}</td></tr>`,
  )}</tbody></table>`;
}

/** RFC 4180 CSV; a cell that starts like a formula is quoted with a leading apostrophe so spreadsheets do not run it. */
export function usageCsv(group: UsageGrouping, rows: UsageRow[]): string {
  const cell = (value: string | number) => {
    let text = String(value);
    if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [[group, 'runs', 'refused', 'input_tokens', 'output_tokens', 'cost_usd'].join(',')];
  for (const row of rows) lines.push([cell(row.key), row.runs, row.refused, row.inputTokens, row.outputTokens, row.costUsd.toFixed(6)].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
