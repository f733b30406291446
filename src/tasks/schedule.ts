/**
 * A task's `when`, checked and turned into due times. `when` is an ISO 8601 local date-time (once) or a 5-field
 * cron expression (repeating), read in a time zone. croner computes the times (DST included: a local time that a
 * spring-forward skips runs at the first valid time after it, one that a fall-back repeats runs once). Every
 * refusal is a sentence the model can pass on to the person.
 */
import { messageOf } from '../core/errors';
import { Cron } from 'croner';
import { formatDuration, formatLocal, isTimeZone, localIso } from './local-time';

export interface TaskSchedule {
  kind: 'once' | 'cron';
  /** once: "2026-12-01T09:00:00" (local, no offset); cron: the 5 fields as given, spaces normalised. */
  expression: string;
  timeZone: string;
}

export interface ScheduleLimits {
  /** TASK_MIN_INTERVAL_MINUTES: the shortest gap a repeating task may have between two runs. */
  minIntervalMinutes: number;
  /** How many upcoming runs the gap is measured over. */
  sampleRuns?: number;
}

export type ScheduleProblem = 'unparseable' | 'time_zone' | 'past' | 'too_frequent' | 'never';

export type ScheduleCheck =
  | { ok: true; schedule: TaskSchedule; nextDue: Date }
  | { ok: false; problem: ScheduleProblem; message: string };

const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const DEFAULT_SAMPLE_RUNS = 200;

/** Checks `when` in `timeZone` at `now` (ms): the schedule to store and its first due time, or why not. */
export function checkSchedule(when: string, timeZone: string, now: number, limits: ScheduleLimits): ScheduleCheck {
  const zone = timeZone.trim();
  if (!isTimeZone(zone)) {
    return refuse('time_zone', `"${timeZone}" is not a time zone I know; use an IANA name such as Europe/Paris, America/New_York or UTC.`);
  }
  const text = when.trim().replace(/\s+/g, ' ');
  const iso = ISO_LOCAL.exec(text);
  if (iso) return checkOnce(iso, text, zone, now);
  if (text.split(' ').length === 5 && /^[\d*/,\-a-z?#lw ]+$/i.test(text)) return checkCron(text, zone, now, limits);
  return refuse(
    'unparseable',
    `I could not read "${when}" as a time: give either an ISO 8601 local date-time for a single run (like 2026-12-01T09:00) or a 5-field cron expression for a repeating one (minute hour day-of-month month day-of-week, like "0 9 * * 1" for every Monday at 09:00).`,
  );
}

function checkOnce(match: RegExpExecArray, text: string, zone: string, now: number): ScheduleCheck {
  const [, y, mo, d, h, mi, s, offset] = match;
  const fields = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number];
  const probe = new Date(Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5]));
  const real =
    probe.getUTCFullYear() === fields[0] &&
    probe.getUTCMonth() === fields[1] - 1 &&
    probe.getUTCDate() === fields[2] &&
    probe.getUTCHours() === fields[3] &&
    probe.getUTCMinutes() === fields[4];
  if (!real) return refuse('unparseable', `"${text}" is not a real date and time; check the day, month and hour.`);

  let at: Date;
  if (offset) {
    // An explicit offset names the instant; it is kept as the wall-clock time in the task's zone.
    at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${offset.toUpperCase() === 'Z' ? 'Z' : offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset}`);
  } else {
    const local = `${y}-${mo}-${d}T${h}:${mi}:${(s ?? '00').padStart(2, '0')}`;
    const once = new Cron(local, { timezone: zone, paused: true }).getOnce();
    if (!once) return refuse('unparseable', `"${text}" is not a date and time I can place in ${zone}.`);
    at = once;
  }
  const schedule: TaskSchedule = { kind: 'once', expression: localIso(at, zone), timeZone: zone };
  if (at.getTime() <= now) {
    return refuse(
      'past',
      `${formatLocal(at, zone, { now })} (${zone}) has already passed: it is ${formatLocal(now, zone)} there now. Pick a time in the future.`,
    );
  }
  return { ok: true, schedule, nextDue: at };
}

function checkCron(text: string, zone: string, now: number, limits: ScheduleLimits): ScheduleCheck {
  let cron: Cron;
  try {
    cron = cronOf(text, zone);
  } catch (error) {
    const reason = messageOf(error).replace(/^CronPattern:\s*/i, '');
    return refuse(
      'unparseable',
      `"${text}" is not a valid 5-field cron expression (${reason}). The fields are minute hour day-of-month month day-of-week, like "0 9 * * 1-5" for weekdays at 09:00.`,
    );
  }
  const schedule: TaskSchedule = { kind: 'cron', expression: text, timeZone: zone };
  const runs = cron.nextRuns(limits.sampleRuns ?? DEFAULT_SAMPLE_RUNS, new Date(now));
  const first = runs[0];
  if (!first) return refuse('never', `"${text}" never comes round (no such date after today); check the day and month fields.`);
  const gap = minimumGap(runs);
  const minMs = limits.minIntervalMinutes * 60_000;
  if (gap && gap.ms < minMs) {
    return refuse(
      'too_frequent',
      `"${text}" would run every ${formatDuration(gap.ms)} at its most frequent (${formatLocal(gap.from, zone, { now })} then ${formatLocal(gap.to, zone, { now })}), and the shortest interval allowed here is ${limits.minIntervalMinutes} minutes. Choose a less frequent schedule (an admin can change TASK_MIN_INTERVAL_MINUTES).`,
    );
  }
  return { ok: true, schedule, nextDue: first };
}

/**
 * The first due time strictly after `after` (ms), or undefined when the schedule has none left. Called with the
 * present time after a missed occurrence, it skips every other missed one: a restart never makes a burst.
 */
export function nextDueAfter(schedule: TaskSchedule, after: number): Date | undefined {
  if (schedule.kind === 'once') {
    const at = new Cron(schedule.expression, { timezone: schedule.timeZone, paused: true }).getOnce();
    return at && at.getTime() > after ? at : undefined;
  }
  return cronOf(schedule.expression, schedule.timeZone).nextRun(new Date(after)) ?? undefined;
}

/** The next `count` due times strictly after `after`. */
export function upcomingDueTimes(schedule: TaskSchedule, after: number, count: number): Date[] {
  if (schedule.kind === 'once') {
    const at = nextDueAfter(schedule, after);
    return at ? [at] : [];
  }
  return cronOf(schedule.expression, schedule.timeZone).nextRuns(count, new Date(after));
}

function cronOf(expression: string, timeZone: string): Cron {
  return new Cron(expression, { timezone: timeZone, paused: true, mode: '5-part' });
}

function minimumGap(runs: readonly Date[]): { ms: number; from: Date; to: Date } | undefined {
  let best: { ms: number; from: Date; to: Date } | undefined;
  for (let i = 1; i < runs.length; i++) {
    const ms = runs[i]!.getTime() - runs[i - 1]!.getTime();
    if (!best || ms < best.ms) best = { ms, from: runs[i - 1]!, to: runs[i]! };
  }
  return best;
}

function refuse(problem: ScheduleProblem, message: string): ScheduleCheck {
  return { ok: false, problem, message };
}
