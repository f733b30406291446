/**
 * A task's `when`: ISO local date-times and 5-field crons in a time zone (croner underneath), DST in Europe/Paris
 * and America/New_York, and the sentences for what cannot be scheduled.
 */
import { describe, expect, it } from 'vitest';
import { localIso, wallClock } from '../../src/tasks/local-time';
import { checkSchedule, nextDueAfter, upcomingDueTimes, type TaskSchedule } from '../../src/tasks/schedule';

const limits = { minIntervalMinutes: 60 };
const at = (iso: string) => Date.parse(iso);
const local = (date: Date, zone: string) => localIso(date, zone).slice(0, 16);

describe('checkSchedule', () => {
  const now = at('2026-11-26T10:00:00Z'); // Thu 26 Nov 2026, 11:00 in Paris

  it('reads an ISO 8601 local date-time in the given zone as a one-off', () => {
    const paris = checkSchedule('2026-12-01T09:00', 'Europe/Paris', now, limits);
    expect(paris).toEqual({ ok: true, schedule: { kind: 'once', expression: '2026-12-01T09:00:00', timeZone: 'Europe/Paris' }, nextDue: new Date('2026-12-01T08:00:00Z') });
    const newYork = checkSchedule('2026-12-01 09:00:00', 'America/New_York', now, limits);
    expect(newYork.ok && newYork.nextDue.toISOString()).toBe('2026-12-01T14:00:00.000Z');
    // An explicit offset names the instant; it is kept as the wall-clock time in the task's zone.
    const offset = checkSchedule('2026-12-01T09:00:00Z', 'Europe/Paris', now, limits);
    expect(offset.ok && offset.schedule.expression).toBe('2026-12-01T10:00:00');
  });

  it('reads a 5-field cron as repeating, its first due time in the zone', () => {
    const mondays = checkSchedule('0  9 * * 1', 'Europe/Paris', now, limits);
    expect(mondays).toEqual({ ok: true, schedule: { kind: 'cron', expression: '0 9 * * 1', timeZone: 'Europe/Paris' }, nextDue: new Date('2026-11-30T08:00:00Z') });
  });

  it('says why a time in the past cannot be scheduled', () => {
    const past = checkSchedule('2026-11-25T09:00', 'Europe/Paris', now, limits);
    expect(past).toEqual({
      ok: false,
      problem: 'past',
      message: 'Wed 25 Nov, 09:00 (Europe/Paris) has already passed: it is Thu 26 Nov, 11:00 there now. Pick a time in the future.',
    });
  });

  it('says why a schedule more frequent than TASK_MIN_INTERVAL_MINUTES is refused, measured over the next runs', () => {
    const often = checkSchedule('*/15 * * * *', 'UTC', now, limits);
    expect(often.ok).toBe(false);
    expect(!often.ok && often.problem).toBe('too_frequent');
    expect(!often.ok && often.message).toContain('would run every 15 min at its most frequent');
    expect(!often.ok && often.message).toContain('the shortest interval allowed here is 60 minutes');
    // Hourly is exactly the minimum: allowed. Two runs close together once a day are caught too.
    expect(checkSchedule('0 * * * *', 'UTC', now, limits).ok).toBe(true);
    const pair = checkSchedule('0,30 9 * * *', 'UTC', now, limits);
    expect(!pair.ok && pair.message).toContain('every 30 min');
    expect(checkSchedule('0,30 9 * * *', 'UTC', now, { minIntervalMinutes: 30 }).ok).toBe(true);
  });

  it('says why it cannot read a `when`', () => {
    const words = checkSchedule('every monday at 9', 'UTC', now, limits);
    expect(words).toMatchObject({ ok: false, problem: 'unparseable' });
    expect(!words.ok && words.message).toContain('5-field cron expression');
    const badMinute = checkSchedule('61 9 * * *', 'UTC', now, limits);
    expect(badMinute).toMatchObject({ ok: false, problem: 'unparseable' });
    expect(!badMinute.ok && badMinute.message).toContain('"61 9 * * *" is not a valid 5-field cron expression');
    // Six fields (seconds) are not the contract's five.
    expect(checkSchedule('0 0 9 * * *', 'UTC', now, limits)).toMatchObject({ ok: false, problem: 'unparseable' });
    expect(checkSchedule('2026-02-30T09:00', 'UTC', now, limits)).toMatchObject({ ok: false, problem: 'unparseable', message: '"2026-02-30T09:00" is not a real date and time; check the day, month and hour.' });
    expect(checkSchedule('0 9 * * *', 'Mars/Olympus', now, limits)).toMatchObject({ ok: false, problem: 'time_zone' });
    expect(checkSchedule('0 9 30 2 *', 'UTC', now, limits)).toMatchObject({ ok: false, problem: 'never' });
  });
});

describe('due times across DST', () => {
  const daily = (zone: string): TaskSchedule => ({ kind: 'cron', expression: '0 9 * * *', timeZone: zone });

  it('Europe/Paris: 09:00 stays 09:00 local across both changes (UTC moves by an hour)', () => {
    const spring = upcomingDueTimes(daily('Europe/Paris'), at('2026-03-27T12:00:00Z'), 3);
    expect(spring.map((d) => d.toISOString())).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    expect(spring.map((d) => local(d, 'Europe/Paris'))).toEqual(['2026-03-28T09:00', '2026-03-29T09:00', '2026-03-30T09:00']);
    const autumn = upcomingDueTimes(daily('Europe/Paris'), at('2026-10-24T12:00:00Z'), 2);
    expect(autumn.map((d) => d.toISOString())).toEqual(['2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });

  it('America/New_York: 09:00 stays 09:00 local across both changes', () => {
    const spring = upcomingDueTimes(daily('America/New_York'), at('2026-03-07T18:00:00Z'), 2);
    expect(spring.map((d) => d.toISOString())).toEqual(['2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z']);
    const autumn = upcomingDueTimes(daily('America/New_York'), at('2026-10-31T18:00:00Z'), 2);
    expect(autumn.map((d) => d.toISOString())).toEqual(['2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z']);
    expect(autumn.map((d) => local(d, 'America/New_York'))).toEqual(['2026-11-01T09:00', '2026-11-02T09:00']);
  });

  it('a local time the spring-forward skips runs once, at the first valid time after it', () => {
    const paris = upcomingDueTimes({ kind: 'cron', expression: '30 2 * * *', timeZone: 'Europe/Paris' }, at('2026-03-28T12:00:00Z'), 2);
    expect(paris.map((d) => local(d, 'Europe/Paris'))).toEqual(['2026-03-29T03:00', '2026-03-30T02:30']);
    const newYork = upcomingDueTimes({ kind: 'cron', expression: '30 2 * * *', timeZone: 'America/New_York' }, at('2026-03-07T12:00:00Z'), 2);
    expect(newYork.map((d) => local(d, 'America/New_York'))).toEqual(['2026-03-08T03:00', '2026-03-09T02:30']);
  });

  it('a local time the fall-back repeats runs once, not twice', () => {
    const newYork = upcomingDueTimes({ kind: 'cron', expression: '30 1 * * *', timeZone: 'America/New_York' }, at('2026-10-31T12:00:00Z'), 3);
    expect(newYork.map((d) => d.toISOString())).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z', '2026-11-03T06:30:00.000Z']);
    const paris = upcomingDueTimes({ kind: 'cron', expression: '30 2 * * *', timeZone: 'Europe/Paris' }, at('2026-10-24T12:00:00Z'), 2);
    expect(paris.map((d) => local(d, 'Europe/Paris'))).toEqual(['2026-10-25T02:30', '2026-10-26T02:30']);
  });

  it('a one-off on a DST day lands on the local time asked for', () => {
    const checked = checkSchedule('2026-11-01T09:00', 'America/New_York', at('2026-10-30T00:00:00Z'), limits);
    expect(checked.ok && checked.nextDue.toISOString()).toBe('2026-11-01T14:00:00.000Z');
    expect(checked.ok && wallClock(checked.nextDue, 'America/New_York').hour).toBe(9);
  });
});

describe('nextDueAfter', () => {
  it('after downtime gives the next due time after now, not the missed ones', () => {
    const weekly: TaskSchedule = { kind: 'cron', expression: '0 9 * * 1', timeZone: 'Europe/Paris' };
    // Down from before Mon 30 Nov 09:00 until Wed 16 Dec: the next is Mon 21 Dec, the three missed ones are skipped.
    expect(nextDueAfter(weekly, at('2026-12-16T12:00:00Z'))?.toISOString()).toBe('2026-12-21T08:00:00.000Z');
  });

  it('a one-off has nothing after its time', () => {
    const once: TaskSchedule = { kind: 'once', expression: '2026-12-01T09:00:00', timeZone: 'Europe/Paris' };
    expect(nextDueAfter(once, at('2026-11-30T00:00:00Z'))?.toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(nextDueAfter(once, at('2026-12-01T08:00:00Z'))).toBeUndefined();
  });
});
