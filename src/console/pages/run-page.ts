/**
 * One run: what it was asked, the timeline of its model and tool calls (arguments, result size and first lines,
 * duration, tokens, errors) with a sub-agent's calls nested under the tool call that ran it, skills loaded, files
 * read, images shown, approvals, the answer, and a link to the thread.
 */
import { html } from 'hono/html';
import { formatCount } from '../../core/format';
import { formatUsd } from '../../core/model-prices';
import type { RunDetail } from '../../store/console-queries';
import { formatDurationMs, formatUtc, slackThreadUrl, type Fragment } from '../layout';
import { channelLabel, channelText, NONE, personLabel } from '../names';
import { describeRunNow } from '../run-now';
import { postedItems, type PostedItem } from '../run-outputs';

type Step = RunDetail['steps'][number];
type Approval = RunDetail['approvals'][number];

/** Tools whose `id` argument names a file of the thread. */
const FILE_TOOLS = new Set(['load_file', 'peek_file', 'extract_file', 'search_file', 'ask_file']);

/**
 * `showOutputs`: the console can draw the run's charts and make its files again (run-outputs.ts), so the page shows
 * each chart's image and links each file; without it they are only named.
 */
export function runBody(detail: RunDetail, options: { showOutputs: boolean } = { showOutputs: false }): Fragment {
  const { run, thread, names, fileNames } = detail;
  const started = run.startedAt ?? run.createdAt;
  const duration = run.finishedAt && run.startedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null;
  const filesRead = [...new Set(detail.steps.filter((s) => FILE_TOOLS.has(s.name) && isToolKind(s)).map((s) => fileIdOf(s)).filter(Boolean))];
  const channelId = run.channelId ?? thread.channelId;
  const now = describeRunNow(
    { ...run, pendingApprovals: detail.approvals.filter((a) => a.status === 'pending') },
    detail.now,
  );
  const posted = postedItems(detail);
  const charts = options.showOutputs ? posted.filter((item) => item.kind === 'chart') : [];
  const href = (item: PostedItem) => `/runs/${run.id}/posted/${item.stepId}`;
  const postedItem = (item: PostedItem) => html`${postedLine(item)}${previewOf(item)}`;
  const previewOf = (item: PostedItem) => {
    const preview = detail.steps.find((s) => s.id === item.stepId)?.resultPreview;
    return preview ? html` — <small>${firstLine(preview)}</small>` : '';
  };
  const postedLine = (item: PostedItem) => {
    const from = html` of ${fileLabel(item.fileId)}`;
    if (item.kind === 'table') return html`table${from} <small>(Slack's table block; nothing to download)</small>`;
    if (!options.showOutputs || !item.downloadName) return html`${item.kind}${from}: ${item.title}${item.downloadName ? '' : html` <small>(in Slack only)</small>`}`;
    return item.kind === 'chart'
      ? html`chart${from}: <a href="${href(item)}" download="${item.downloadName}">${item.downloadName}</a> <small>(shown below)</small>`
      : html`file${from}: <a href="${href(item)}" download="${item.downloadName}">${item.downloadName}</a>`;
  };
  const fileLabel = (id: string) => (fileNames.get(id) ? html`<span title="${id}">${fileNames.get(id)}</span>` : html`${id}`);
  return html`<p><a href="${slackThreadUrl(run.teamId ?? thread.teamId, channelId, thread.threadTs)}">Open the thread in Slack</a> · <a href="/runs?channel=${encodeURIComponent(channelId)}">Other runs in ${channelText(names, channelId)}</a></p>
<dl class="facts">
<dt>Question</dt><dd>${run.question ?? '—'}</dd>
<dt>Status</dt><dd class="status-${run.status}">${run.status.replace('_', ' ')}${run.error ? html` — <span class="error">${run.error}</span>` : ''}</dd>
${now ? html`<dt>Now</dt><dd id="run-now">${now}</dd>` : ''}
<dt>Channel</dt><dd>${channelLabel(names, channelId)}</dd>
<dt>Asked by</dt><dd>${personLabel(names, run.triggerUserId)}</dd>
<dt>Asked</dt><dd>${formatUtc(run.createdAt)}</dd>
<dt>Duration</dt><dd>${formatDurationMs(duration)}</dd>
<dt>Model</dt><dd>${run.model ?? (run.currentStep?.kind === 'model' ? run.currentStep.names[0] : undefined) ?? NONE}${run.strategy ? ` (${run.strategy})` : ''}</dd>
<dt>Iterations</dt><dd>${run.iterations}</dd>
<dt>Tokens</dt><dd>${formatCount(run.inputTokens)} in, ${formatCount(run.outputTokens)} out</dd>
<dt>Cost</dt><dd>${formatUsd(run.costUsd)}</dd>
<dt>Attempts</dt><dd>${run.attempts}</dd>
<dt>Skills loaded</dt><dd>${run.skillsLoaded.length ? run.skillsLoaded.join(', ') : 'none'}</dd>
<dt>Files read</dt><dd>${filesRead.length ? filesRead.map((id, i) => html`${i ? ', ' : ''}${fileLabel(id)}`) : 'none'}${run.activity ? html` <small>(${run.activity})</small>` : ''}</dd>
<dt>Posted</dt><dd>${posted.length ? html`<ul class="posted">${posted.map((item) => html`<li>${postedItem(item)}</li>`)}</ul>` : 'nothing'}</dd>
<dt>Images shown</dt><dd>${run.imagesShown.length ? run.imagesShown.join(', ') : 'none'}</dd>
<dt>Feedback</dt><dd>${detail.feedback.length ? detail.feedback.map((f, i) => html`${i ? ', ' : ''}${personLabel(names, f.userId)}: ${f.value}`) : 'none'}</dd>
</dl>
${
  charts.length
    ? html`<h2>Charts</h2>
${charts.map(
  (item) => html`<figure class="posted-chart">
<figcaption>${item.title}</figcaption>
<img src="${href(item)}" alt="${item.title}: the chart the run posted, drawn from ${detail.fileNames.get(item.fileId) ?? item.fileId}" loading="lazy">
</figure>`,
)}`
    : ''
}
<h2>Timeline</h2>
${now ? html`<p class="notice" role="status">Now: ${now}. The steps of an attempt are recorded when it ends${detail.steps.length ? '; these are the steps so far' : ''}.</p>` : ''}
${detail.steps.length === 0 ? (now ? '' : html`<p>No model or tool calls were recorded for this run.</p>`) : timeline(detail.steps, started, { approvals: detail.approvals, fileNames, now: detail.now, names })}
<h2>Approvals</h2>
${
  detail.approvals.length === 0
    ? html`<p>No tool call of this run needed approval.</p>`
    : html`<table><thead><tr><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Status</th><th scope="col">Decided by</th><th scope="col">Asked</th><th scope="col" class="num">Waited</th></tr></thead><tbody>
${detail.approvals.map(
  (a) => html`<tr><td>${a.server ? `${a.server} › ` : ''}${a.tool}</td><td><pre>${json(a.arguments)}</pre></td><td>${a.status}</td><td>${a.decidedBy ? personLabel(names, a.decidedBy) : '—'}</td><td>${formatUtc(a.createdAt)}</td><td class="num">${approvalWait(a, detail.now)}</td></tr>`,
)}</tbody></table>`
}
<h2>Answer</h2>
${run.answer ? html`<pre>${run.answer}</pre>` : html`<p>${run.answerTs.length ? 'Posted (its text was not recorded).' : 'No answer was posted.'}</p>`}`;
}

/** From the request to the decision; still waiting: for how long so far. */
function approvalWait(approval: Pick<Approval, 'createdAt' | 'decidedAt' | 'status'>, now: Date): string {
  if (approval.decidedAt) return formatDurationMs(approval.decidedAt.getTime() - approval.createdAt.getTime());
  return approval.status === 'pending' ? `${formatDurationMs(now.getTime() - approval.createdAt.getTime())} so far` : '—';
}

interface TimelineContext {
  approvals: Approval[];
  fileNames: ReadonlyMap<string, string>;
  names: ReadonlyMap<string, string>;
  now: Date;
}

function timeline(steps: Step[], runStart: Date, context: TimelineContext): Fragment {
  const top = steps.filter((s) => !s.kind.startsWith('subagent_'));
  const nested = nestSubAgentSteps(steps);
  return html`<ol class="timeline">${top.map((step) => stepItem(step, runStart, nested.get(step.id) ?? [], context))}</ol>`;
}

/**
 * A sub-agent's calls belong to the ask_file call that ran them: the one whose time span holds theirs (steps are
 * recorded at the end of the run, so time is what ties them together). Older rows without a start time go under
 * the first ask_file.
 */
function nestSubAgentSteps(steps: Step[]): Map<number, Step[]> {
  const parents = steps.filter((s) => s.kind === 'tool' && s.name === 'ask_file');
  const nested = new Map<number, Step[]>();
  for (const step of steps.filter((s) => s.kind.startsWith('subagent_'))) {
    const start = step.startedAt?.getTime();
    const parent =
      parents.find((p) => start !== undefined && p.startedAt && start >= p.startedAt.getTime() && start <= p.startedAt.getTime() + p.durationMs) ?? parents[0];
    if (!parent) continue;
    nested.set(parent.id, [...(nested.get(parent.id) ?? []), step]);
  }
  return nested;
}

function stepItem(step: Step, runStart: Date, children: Step[], context: TimelineContext): Fragment {
  const offset = step.startedAt ? `+${formatDurationMs(Math.max(0, step.startedAt.getTime() - runStart.getTime()))}` : '';
  const tool = isToolKind(step);
  const approval = step.kind.startsWith('approval_');
  const label = approval ? step.kind.replace('_', ' ') : tool ? 'tool call' : 'model call';
  const file = tool && FILE_TOOLS.has(step.name) ? context.fileNames.get(fileIdOf(step)) : undefined;
  return html`<li class="${tool ? 'tool' : approval ? 'approval' : 'model'}">
<strong>${label}: ${step.name}</strong>${file ? html` <span title="${fileIdOf(step)}">(${file})</span>` : ''} <small>iteration ${step.iteration}${offset ? ` · started ${offset}` : ''} · ${approval ? approvalTiming(step, context) : `took ${formatDurationMs(step.durationMs)}`}</small>
${step.inputTokens !== null || step.outputTokens !== null ? html`<div>Tokens: ${formatCount(step.inputTokens ?? 0)} in, ${formatCount(step.outputTokens ?? 0)} out</div>` : ''}
${(tool || approval) && step.arguments !== null ? html`<div>Arguments:</div><pre>${json(step.arguments)}</pre>` : ''}
${step.resultChars !== null ? html`<div>Result: ${formatCount(step.resultChars)} characters</div>` : ''}
${step.resultPreview ? html`<pre aria-label="First lines of the result">${step.resultPreview}</pre>` : ''}
${step.error ? html`<div class="error">Error: ${step.error}</div>` : ''}
${children.length ? html`<details open><summary>Sub-agent: ${children.length} calls</summary><ol class="nested">${children.map((child) => stepItem(child, runStart, [], context))}</ol></details>` : ''}
</li>`;
}

/**
 * An approval step lasts the wait, from the request to the decision: told from the approval itself (older records
 * kept 0 ms), "waiting … so far" while nobody has decided.
 */
function approvalTiming(step: Step, context: TimelineContext): string {
  const callId = (step.arguments as { callId?: unknown } | null)?.callId;
  const approval = context.approvals.find((a) => a.callId === callId);
  if (step.kind === 'approval_request') {
    if (!approval) return 'asked for a decision';
    if (approval.status === 'pending') return `waiting for a decision: ${approvalWait(approval, context.now)}`;
    return `${approval.status} after ${approvalWait(approval, context.now)}`;
  }
  const waited = step.durationMs > 0 ? formatDurationMs(step.durationMs) : approval ? approvalWait(approval, context.now) : undefined;
  return waited ? `after a wait of ${waited}` : 'decided';
}

/** The file a file tool's `id` argument names. */
function fileIdOf(step: Step): string {
  return String((step.arguments as { id?: unknown } | null)?.id ?? '');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}

const isToolKind = (step: Step) => step.kind === 'tool' || step.kind === 'subagent_tool';

function json(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
