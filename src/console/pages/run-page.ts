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

type Step = RunDetail['steps'][number];

/** Tools whose `id` argument names a file of the thread. */
const FILE_TOOLS = new Set(['load_file', 'peek_file', 'extract_file', 'search_file', 'ask_file']);

export function runBody(detail: RunDetail): Fragment {
  const { run, thread } = detail;
  const started = run.startedAt ?? run.createdAt;
  const duration = run.finishedAt && run.startedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null;
  const filesRead = [...new Set(detail.steps.filter((s) => FILE_TOOLS.has(s.name) && isToolKind(s)).map((s) => String((s.arguments as { id?: unknown } | null)?.id ?? '')).filter(Boolean))];
  const channelId = run.channelId ?? thread.channelId;
  return html`<p><a href="${slackThreadUrl(run.teamId ?? thread.teamId, channelId, thread.threadTs)}">Open the thread in Slack</a> · <a href="/runs?channel=${encodeURIComponent(channelId)}">Other runs in ${channelId}</a></p>
<dl class="facts">
<dt>Question</dt><dd>${run.question ?? '—'}</dd>
<dt>Status</dt><dd class="status-${run.status}">${run.status.replace('_', ' ')}${run.error ? html` — <span class="error">${run.error}</span>` : ''}</dd>
<dt>Channel / user</dt><dd>${channelId} / ${run.triggerUserId ?? '—'}</dd>
<dt>Asked</dt><dd>${formatUtc(run.createdAt)}</dd>
<dt>Duration</dt><dd>${formatDurationMs(duration)}</dd>
<dt>Model</dt><dd>${run.model ?? '—'}${run.strategy ? ` (${run.strategy})` : ''}</dd>
<dt>Iterations</dt><dd>${run.iterations}</dd>
<dt>Tokens</dt><dd>${formatCount(run.inputTokens)} in, ${formatCount(run.outputTokens)} out</dd>
<dt>Cost</dt><dd>${formatUsd(run.costUsd)}</dd>
<dt>Attempts</dt><dd>${run.attempts}</dd>
<dt>Skills loaded</dt><dd>${run.skillsLoaded.length ? run.skillsLoaded.join(', ') : 'none'}</dd>
<dt>Files read</dt><dd>${filesRead.length ? filesRead.join(', ') : 'none'}${run.activity ? html` <small>(${run.activity})</small>` : ''}</dd>
<dt>Images shown</dt><dd>${run.imagesShown.length ? run.imagesShown.join(', ') : 'none'}</dd>
<dt>Feedback</dt><dd>${detail.feedback.length ? detail.feedback.map((f) => `${f.userId}: ${f.value}`).join(', ') : 'none'}</dd>
</dl>
<h2>Timeline</h2>
${detail.steps.length === 0 ? html`<p>No model or tool calls were recorded for this run.</p>` : timeline(detail.steps, started)}
<h2>Approvals</h2>
${
  detail.approvals.length === 0
    ? html`<p>No tool call of this run needed approval.</p>`
    : html`<table><thead><tr><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Status</th><th scope="col">Decided by</th><th scope="col">When</th></tr></thead><tbody>
${detail.approvals.map(
  (a) => html`<tr><td>${a.server ? `${a.server} › ` : ''}${a.tool}</td><td><pre>${json(a.arguments)}</pre></td><td>${a.status}</td><td>${a.decidedBy ?? '—'}</td><td>${formatUtc(a.decidedAt ?? a.createdAt)}</td></tr>`,
)}</tbody></table>`
}
<h2>Answer</h2>
${run.answer ? html`<pre>${run.answer}</pre>` : html`<p>${run.answerTs.length ? 'Posted (its text was not recorded).' : 'No answer was posted.'}</p>`}`;
}

function timeline(steps: Step[], runStart: Date): Fragment {
  const top = steps.filter((s) => !s.kind.startsWith('subagent_'));
  const nested = nestSubAgentSteps(steps);
  return html`<ol class="timeline">${top.map((step) => stepItem(step, runStart, nested.get(step.id) ?? []))}</ol>`;
}

/**
 * A sub-agent's calls belong to the ask_file call that ran them: the one whose time span holds theirs (steps are
 * recorded at the end of the run, so time is what ties them together). Older rows without a start time go under
 * the first ask_file.
 */
export function nestSubAgentSteps(steps: Step[]): Map<number, Step[]> {
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

function stepItem(step: Step, runStart: Date, children: Step[]): Fragment {
  const offset = step.startedAt ? `+${formatDurationMs(Math.max(0, step.startedAt.getTime() - runStart.getTime()))}` : '';
  const tool = isToolKind(step);
  const label = step.kind.startsWith('approval_') ? step.kind.replace('_', ' ') : tool ? 'tool call' : 'model call';
  return html`<li class="${tool ? 'tool' : 'model'}">
<strong>${label}: ${step.name}</strong> <small>iteration ${step.iteration}${offset ? ` · started ${offset}` : ''} · took ${formatDurationMs(step.durationMs)}</small>
${step.inputTokens !== null || step.outputTokens !== null ? html`<div>Tokens: ${formatCount(step.inputTokens ?? 0)} in, ${formatCount(step.outputTokens ?? 0)} out</div>` : ''}
${tool && step.arguments !== null ? html`<div>Arguments:</div><pre>${json(step.arguments)}</pre>` : ''}
${step.resultChars !== null ? html`<div>Result: ${formatCount(step.resultChars)} characters</div>` : ''}
${step.resultPreview ? html`<pre aria-label="First lines of the result">${step.resultPreview}</pre>` : ''}
${step.error ? html`<div class="error">Error: ${step.error}</div>` : ''}
${children.length ? html`<details open><summary>Sub-agent: ${children.length} calls</summary><ol class="nested">${children.map((child) => stepItem(child, runStart, []))}</ol></details>` : ''}
</li>`;
}

const isToolKind = (step: Step) => step.kind === 'tool' || step.kind === 'subagent_tool';

function json(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
