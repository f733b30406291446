/**
 * Tasks: every scheduled task — its owner and channel by name, its schedule in words, its next run, its state and
 * last result — and under each, its occurrences (due, claimed, how late, the result) linked to the runs that
 * answered them.
 */
import { html } from 'hono/html';
import type { OccurrenceWithRun, TaskRow } from '../../store/task-store';
import { describeTask } from '../../tasks/describe-schedule';
import { formatLocal } from '../../tasks/local-time';
import { scheduleOf } from '../../tasks/task-schedule-of';
import { formatDurationMs, formatUtc, slackThreadUrl, type Fragment } from '../layout';
import { channelLabel, NONE, personLabel, type Names } from '../names';

export interface TaskWithOccurrences {
  task: TaskRow;
  occurrences: OccurrenceWithRun[];
}

export function tasksBody(tasks: readonly TaskWithOccurrences[], names: Names, now: number): Fragment {
  if (tasks.length === 0) return html`<p>No scheduled tasks yet. People schedule them by asking in a thread (“every Monday at 9 summarise #incidents here”).</p>`;
  return html`<table>
<caption>${tasks.length} ${tasks.length === 1 ? 'task' : 'tasks'}, soonest due first</caption>
<thead><tr><th scope="col">Task</th><th scope="col">Owner</th><th scope="col">Channel</th><th scope="col">Schedule</th><th scope="col">Next run</th><th scope="col">State</th><th scope="col">Last result</th></tr></thead>
<tbody>
${tasks.map(({ task }) => html`<tr>
<td><a href="#task-${task.id}">#${task.id}</a> ${shorten(task.prompt, 80)}</td>
<td>${personLabel(names, task.ownerId)}</td>
<td>${channelLabel(names, task.channelId)}</td>
<td>${scheduleWords(task, now)}</td>
<td>${task.state === 'active' && task.nextDueAt ? html`<span title="${formatUtc(task.nextDueAt)}">${formatLocal(task.nextDueAt, task.timeZone, { now })} ${task.timeZone}</span>` : NONE}</td>
<td class="${task.state === 'paused' ? 'error' : ''}">${stateWords(task)}</td>
<td>${lastResult(task)}</td>
</tr>`)}
</tbody></table>
${tasks.map(({ task, occurrences }) => occurrencesSection(task, occurrences))}`;
}

function occurrencesSection(task: TaskRow, occurrences: readonly OccurrenceWithRun[]): Fragment {
  return html`<section aria-labelledby="task-${task.id}">
<h2 id="task-${task.id}">Task #${task.id}: ${shorten(task.prompt, 60)}</h2>
<p><a href="${slackThreadUrl(task.teamId, task.channelId, task.threadTs)}">Its thread in Slack</a> · created ${formatUtc(task.createdAt)}</p>
${
  occurrences.length === 0
    ? html`<p>No occurrence yet.</p>`
    : html`<table><caption>Occurrences, newest first</caption>
<thead><tr><th scope="col">Due</th><th scope="col">Claimed</th><th scope="col" class="num">Late by</th><th scope="col">Run</th><th scope="col">Result</th></tr></thead>
<tbody>${occurrences.map(
        (occurrence) => html`<tr>
<td>${formatUtc(occurrence.dueAt)}</td>
<td>${formatUtc(occurrence.claimedAt)} <span title="the replica that claimed it">(${occurrence.claimedBy})</span></td>
<td class="num">${occurrence.lateMs > 0 ? formatDurationMs(occurrence.lateMs) : '—'}</td>
<td>${occurrence.runId ? html`<a href="/runs/${occurrence.runId}">Run #${occurrence.runId}</a>${occurrence.runStatus ? html` <span class="status-${occurrence.runStatus}">${occurrence.runStatus}</span>` : ''}` : NONE}</td>
<td class="${occurrence.result === 'failed' ? 'error' : ''}">${occurrence.result ?? 'not finished'}${occurrence.error ? html`: ${occurrence.error}` : ''}</td>
</tr>`,
      )}</tbody></table>`
}
</section>`;
}

function scheduleWords(task: TaskRow, now: number): string {
  return describeTask(scheduleOf(task), undefined, now).replace(/ — next: .*$/, '');
}

function stateWords(task: TaskRow): string {
  if (task.state === 'paused') return task.pausedReason === 'failures' ? `paused after ${task.consecutiveFailures} failures in a row` : 'paused';
  return task.state;
}

function lastResult(task: TaskRow): Fragment {
  if (!task.lastResult) return html`not run yet`;
  const when = task.lastRunAt ? ` (${formatUtc(task.lastRunAt)})` : '';
  if (task.lastResult === 'ok') return html`<span class="ok">ok</span>${when}`;
  const reason = task.lastError ? html`: ${shorten(task.lastError, 120)}` : '';
  return task.lastResult === 'skipped' ? html`skipped${when}${reason}` : html`<span class="error">failed</span>${when}${reason}`;
}

function shorten(text: string, max: number): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
