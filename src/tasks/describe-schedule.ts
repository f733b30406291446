/**
 * A schedule in words, as the announcement, `/ask tasks` and the tool's result show it:
 * "every Monday at 09:00 Europe/Paris — next: Mon 1 Dec, 09:00". Common cron shapes (daily, weekdays, some
 * weekdays, monthly, yearly, every N hours or minutes, hourly within a range) read as English; anything else
 * falls back to the cron text itself.
 */
import { clockTime, formatLocal, MONTH_NAMES } from './local-time';
import type { TaskSchedule } from './schedule';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_ABBREVIATIONS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTH_ABBREVIATIONS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The whole line: the schedule, its zone and (for a repeating task) the next run. */
export function describeTask(schedule: TaskSchedule, nextDue: Date | null | undefined, now?: number): string {
  if (schedule.kind === 'once') {
    const at = nextDue ?? undefined;
    return at ? `once, on ${formatLocal(at, schedule.timeZone, { now })} ${schedule.timeZone}` : `once, at ${schedule.expression.replace('T', ' ').slice(0, 16)} ${schedule.timeZone}`;
  }
  const words = describeCron(schedule.expression);
  const next = nextDue ? ` — next: ${formatLocal(nextDue, schedule.timeZone, { now })}` : '';
  return `${words} ${schedule.timeZone}${next}`;
}

/** "every weekday at 09:00"; `on the cron schedule "…"` for shapes it does not know. */
export function describeCron(expression: string): string {
  const fields = expression.trim().split(/\s+/);
  const fallback = `on the cron schedule "${fields.join(' ')}"`;
  if (fields.length !== 5) return fallback;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  const days = describeDays(dayOfMonth, month, dayOfWeek);
  const times = describeTimes(minute, hour);
  if (!days || !times) return fallback;
  if (times.kind === 'at') return `${days.every} at ${times.text}`;
  return days.on ? `${times.text} ${days.on}` : times.text;
}

interface DaysPhrase {
  /** "every Monday", "every day", "on the 1st of every month". */
  every: string;
  /** As a qualifier after an hourly phrase: "on Mondays", "" (every day). */
  on: string;
}

function describeDays(dayOfMonth: string, month: string, dayOfWeek: string): DaysPhrase | undefined {
  const anyDom = dayOfMonth === '*' || dayOfMonth === '?';
  const anyDow = dayOfWeek === '*' || dayOfWeek === '?';
  if (anyDom && month === '*' && anyDow) return { every: 'every day', on: '' };
  if (anyDom && month === '*') {
    const weekdays = weekdaySet(dayOfWeek);
    if (!weekdays) return undefined;
    const key = [...weekdays].sort().join(',');
    if (key === '1,2,3,4,5') return { every: 'every weekday', on: 'on weekdays' };
    if (key === '0,6') return { every: 'every Saturday and Sunday', on: 'at weekends' };
    if (weekdays.size === 7) return { every: 'every day', on: '' };
    const ordered = [...weekdays].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)).map((day) => DAY_NAMES[day]!);
    return { every: `every ${joinWords(ordered)}`, on: `on ${joinWords(ordered.map((name) => `${name}s`))}` };
  }
  if (!anyDow) return undefined;
  const dates = numberList(dayOfMonth, 1, 31);
  if (!dates) return undefined;
  const ordinals = joinWords(dates.map(ordinal));
  if (month === '*') return { every: `on the ${ordinals} of every month`, on: `on the ${ordinals} of every month` };
  const months = monthList(month);
  if (!months || months.length !== 1 || dates.length !== 1) return undefined;
  const phrase = `every year on ${dates[0]} ${MONTH_NAMES[months[0]! - 1]}`;
  return { every: phrase, on: `on ${dates[0]} ${MONTH_NAMES[months[0]! - 1]}` };
}

type TimesPhrase = { kind: 'at'; text: string } | { kind: 'repeating'; text: string };

function describeTimes(minute: string, hour: string): TimesPhrase | undefined {
  const minutes = numberList(minute, 0, 59);
  if (minutes && minutes.length === 1) {
    const m = minutes[0]!;
    const hours = numberList(hour, 0, 23);
    if (hours) return { kind: 'at', text: joinWords(hours.map((h) => clockTime(h, m))) };
    const past = `:${String(m).padStart(2, '0')}`;
    if (hour === '*') return { kind: 'repeating', text: `every hour at ${past}` };
    const step = /^(?:\*|0)\/(\d+)$/.exec(hour);
    if (step) return { kind: 'repeating', text: Number(step[1]) === 1 ? `every hour at ${past}` : `every ${Number(step[1])} hours at ${past} (from ${clockTime(0, m)})` };
    const range = /^(\d+)-(\d+)$/.exec(hour);
    if (range && Number(range[1]) < Number(range[2]) && Number(range[2]) <= 23) {
      return { kind: 'repeating', text: `every hour from ${clockTime(Number(range[1]), m)} to ${clockTime(Number(range[2]), m)}` };
    }
    return undefined;
  }
  const minuteStep = /^(?:\*|0)\/(\d+)$/.exec(minute);
  if (minuteStep && hour === '*') return { kind: 'repeating', text: `every ${Number(minuteStep[1])} minutes` };
  return undefined;
}

/** "1,15" → [1, 15]; "9" → [9]; anything with a range or step → undefined (described elsewhere, or not at all). */
function numberList(field: string, min: number, max: number): number[] | undefined {
  if (!/^\d+(,\d+)*$/.test(field)) return undefined;
  const values = [...new Set(field.split(',').map(Number))].sort((a, b) => a - b);
  return values.every((value) => value >= min && value <= max) ? values : undefined;
}

function monthList(field: string): number[] | undefined {
  const named = field.toLowerCase().replace(/[a-z]{3}/g, (name) => {
    const index = MONTH_ABBREVIATIONS.indexOf(name);
    return index < 0 ? name : String(index + 1);
  });
  return numberList(named, 1, 12);
}

/** Day-of-week field → the set of days (0 = Sunday), for lists, ranges and names; undefined for anything else. */
function weekdaySet(field: string): Set<number> | undefined {
  const days = new Set<number>();
  for (const part of field.toLowerCase().split(',')) {
    const range = /^([a-z]{3}|\d)(?:-([a-z]{3}|\d))?$/.exec(part);
    if (!range) return undefined;
    const from = dayNumber(range[1]!);
    const to = range[2] === undefined ? from : dayNumber(range[2]);
    if (from === undefined || to === undefined || to < from) return undefined;
    for (let day = from; day <= to; day++) days.add(day % 7);
  }
  return days;
}

function dayNumber(token: string): number | undefined {
  if (/^\d$/.test(token)) return Number(token) <= 7 ? Number(token) : undefined;
  const index = DAY_ABBREVIATIONS.indexOf(token);
  return index < 0 ? undefined : index;
}

function ordinal(n: number): string {
  const suffix = n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
