/** The request an occurrence's run starts from, who may change a task, and the run's trigger key. */
import { describe, expect, it } from 'vitest';
import { mayChangeTask, seesEveryTask } from '../../src/tasks/authorize';
import { occurrencePrompt } from '../../src/tasks/occurrence-prompt';
import { occurrenceTrigger, parseOccurrenceTrigger } from '../../src/tasks/occurrence-run';

describe('occurrencePrompt', () => {
  const base = {
    ownerId: 'U0OWNER',
    prompt: 'Summarise what changed in #incidents this week.',
    schedule: { kind: 'cron' as const, expression: '0 9 * * 1', timeZone: 'Europe/Paris' },
    dueAt: new Date('2026-11-30T08:00:00Z'),
  };

  it('says it is a scheduled run nobody waits on, when it was due, then the task', () => {
    expect(occurrencePrompt({ ...base, startedAt: Date.parse('2026-11-30T08:00:04Z') })).toBe(
      [
        '[Scheduled run] This is a repeating task (every Monday at 09:00 Europe/Paris) that <@U0OWNER> scheduled in this thread, due Mon 30 Nov, 09:00 (Europe/Paris).',
        'Nobody is waiting for a reply in real time: do the task now and post the result in this thread; do not ask questions back. If something you need is missing, say what, and do what you can without it.',
        '',
        'The task:',
        'Summarise what changed in #incidents this week.',
      ].join('\n'),
    );
  });

  it('says how late it starts after downtime', () => {
    const late = occurrencePrompt({ ...base, schedule: { kind: 'once', expression: '2026-11-30T09:00:00', timeZone: 'Europe/Paris' }, startedAt: Date.parse('2026-11-30T10:05:00Z') });
    expect(late).toContain('This is a one-off task that <@U0OWNER> scheduled in this thread, due Mon 30 Nov, 09:00 (Europe/Paris). It starts 2 h 5 min late');
  });
});

describe('who may change a task', () => {
  it('the owner and admins; anyone else is told who can', () => {
    expect(mayChangeTask({ ownerId: 'U1' }, 'U1', [], 'delete')).toEqual({ allowed: true });
    expect(mayChangeTask({ ownerId: 'U1' }, 'U9', ['U9'], 'pause')).toEqual({ allowed: true });
    expect(mayChangeTask({ ownerId: 'U1' }, 'U2', ['U9'], 'pause')).toEqual({ allowed: false, message: 'Only <@U1> (who scheduled it) or an admin can pause this task.' });
    expect(seesEveryTask('U9', ['U9'])).toBe(true);
    expect(seesEveryTask('U1', ['U9'])).toBe(false);
  });
});

describe('occurrence trigger', () => {
  it('round-trips and is told apart from a Slack ts', () => {
    const key = occurrenceTrigger(12, new Date('2026-11-30T08:00:00Z'));
    expect(key).toBe('task:12:2026-11-30T08:00:00.000Z');
    expect(parseOccurrenceTrigger(key)).toEqual({ taskId: 12, dueAt: new Date('2026-11-30T08:00:00Z') });
    expect(parseOccurrenceTrigger('1700000000.000100')).toBeUndefined();
  });
});
