/**
 * What a run does as the person it answers (a scheduled task's: its owner): per-person servers called with their
 * account and nobody else's, the sign-ins they are asked for, and the tools only they are offered in this run.
 */
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import type { Tool } from '../tools';
import type { AgentDependencies } from './answer-with-agent';
import type { RunSignIns } from './park-waiting-calls';

export interface RunSpeakerDependencies {
  /** Before an attempt builds its tools: per-person servers' tool lists, which another replica's sign-in may have changed. */
  refreshTools?(): Promise<void>;
  signIns?: RunSignIns;
  /** Tools only this run is offered (schedule_task: its asker, thread and time zone); none in the terminal. */
  runTools?(thread: ThreadRow, run: RunRow): Promise<Tool[]>;
}

/** The agent's tools for this run, per-person servers acting as its speaker. */
export function actingAsSpeaker(deps: AgentDependencies, run: RunRow, thread: ThreadRow): AgentDependencies {
  const speaker = run.triggerUserId ? { teamId: run.teamId ?? thread.teamId, userId: run.triggerUserId } : undefined;
  return { ...deps, toolsFor: (channelId, options) => deps.toolsFor(channelId, { ...options, speaker, runId: run.id }) };
}
