/**
 * A workspace for the knowledge tests: the fake Slack over real HTTP, the real WebClient pointed at it (429s
 * rejected, so the knowledge tier's own waiting is what is tested), a database, and a clock that records each wait
 * and lets it pass at once (no sleeping).
 */
import { WebClient } from '@slack/web-api';
import type { Clock } from '../../src/core/clock';
import { createSlackDirectory, type KnowledgeDirectory } from '../../src/knowledge/directory';
import type { DatabaseHandle } from '../../src/store/database';
import type { ToolContext } from '../../src/tools/tool';
import { startFakeSlack, type FakeSlack } from '../fakes/fake-slack';
import type { TestDatabase } from '../support/databases';

/** 2026-11-24 09:00 UTC: every seeded message is placed relative to it. */
export const NOW = Date.UTC(2026, 10, 24, 9, 0, 0);
const HOUR_MS = 60 * 60_000;

/** The ts of a message posted `hoursAgo` hours before NOW (plus a few µs to keep seeds apart). */
export function tsHoursAgo(hoursAgo: number, micros = 100): string {
  const ms = NOW - hoursAgo * HOUR_MS;
  return `${Math.floor(ms / 1000)}.${String(micros).padStart(6, '0')}`;
}

interface RecordingClock extends Clock {
  waits: number[];
}

/** Time moves only by the waits asked for; each wait passes on the next tick. */
function recordingClock(start = NOW): RecordingClock {
  let now = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    setTimeout(callback, ms) {
      waits.push(ms);
      now += ms;
      let cancelled = false;
      setImmediate(() => {
        if (!cancelled) callback();
      });
      return () => {
        cancelled = true;
      };
    },
  };
}

export interface KnowledgeBed {
  handle: DatabaseHandle;
  slack: FakeSlack;
  client: WebClient;
  clock: RecordingClock;
  directory: KnowledgeDirectory;
  close(): Promise<void>;
}

export async function openKnowledgeBed(database: TestDatabase): Promise<KnowledgeBed> {
  const handle = await database.open();
  const slack = await startFakeSlack();
  const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl, rejectRateLimitedCalls: true, retryConfig: { retries: 0 }, timeout: 5_000 });
  const clock = recordingClock();
  const directory = createSlackDirectory(client, { clock, workspaceUrl: 'https://acme.slack.com/' });
  return {
    handle,
    slack,
    client,
    clock,
    directory,
    close: async () => {
      await slack.close();
      await handle.close();
    },
  };
}

export function toolContext(activity: string[] = []): ToolContext {
  return {
    files: undefined as never,
    skills: { read: () => Promise.reject(new Error('no skills here')) },
    signal: new AbortController().signal,
    tokensLeft: () => 100_000,
    showImage: () => {},
    recordActivity: (entry) => activity.push(entry),
  };
}
