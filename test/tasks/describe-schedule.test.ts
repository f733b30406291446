/** Schedules in words: the common cron shapes, the fallback, the next run. */
import { describe, expect, it } from 'vitest';
import { describeCron, describeTask } from '../../src/tasks/describe-schedule';

describe('describeCron', () => {
  it.each([
    ['0 9 * * *', 'every day at 09:00'],
    ['30 8 * * 1-5', 'every weekday at 08:30'],
    ['0 9 * * MON-FRI', 'every weekday at 09:00'],
    ['0 9 * * 1', 'every Monday at 09:00'],
    ['0 9 * * mon,thu', 'every Monday and Thursday at 09:00'],
    ['0 18 * * 5,1,3', 'every Monday, Wednesday and Friday at 18:00'],
    ['0 10 * * 0', 'every Sunday at 10:00'],
    ['0 10 * * 7', 'every Sunday at 10:00'],
    ['0 10 * * 6,0', 'every Saturday and Sunday at 10:00'],
    ['0 9,17 * * *', 'every day at 09:00 and 17:00'],
    ['0 9 1 * *', 'on the 1st of every month at 09:00'],
    ['15 7 1,15 * *', 'on the 1st and 15th of every month at 07:15'],
    ['0 9 24 12 *', 'every year on 24 December at 09:00'],
    ['0 * * * *', 'every hour at :00'],
    ['30 */2 * * *', 'every 2 hours at :30 (from 00:30)'],
    ['0 */4 * * 1-5', 'every 4 hours at :00 (from 00:00) on weekdays'],
    ['0 9-17 * * 1-5', 'every hour from 09:00 to 17:00 on weekdays'],
    ['*/90 * * * *', 'every 90 minutes'],
    ['0 9 L * *', 'on the cron schedule "0 9 L * *"'],
    ['0 9 1 * 1', 'on the cron schedule "0 9 1 * 1"'],
  ])('%s → %s', (cron, words) => {
    expect(describeCron(cron)).toBe(words);
  });
});

describe('describeTask', () => {
  it('names the zone and the next run, as the announcement shows it', () => {
    const next = new Date('2026-11-30T08:00:00Z');
    expect(describeTask({ kind: 'cron', expression: '0 9 * * 1', timeZone: 'Europe/Paris' }, next, Date.parse('2026-11-26T10:00:00Z'))).toBe(
      'every Monday at 09:00 Europe/Paris — next: Mon 30 Nov, 09:00',
    );
    expect(describeTask({ kind: 'cron', expression: '0 9 * * 1', timeZone: 'Europe/Paris' }, new Date('2027-01-04T08:00:00Z'), Date.parse('2026-11-26T10:00:00Z'))).toBe(
      'every Monday at 09:00 Europe/Paris — next: Mon 4 Jan 2027, 09:00',
    );
  });

  it('a one-off reads as its date and time', () => {
    expect(describeTask({ kind: 'once', expression: '2026-12-04T10:00:00', timeZone: 'America/New_York' }, new Date('2026-12-04T15:00:00Z'), Date.parse('2026-12-03T15:00:00Z'))).toBe(
      'once, on Fri 4 Dec, 10:00 America/New_York',
    );
  });
});
