/**
 * Dates as a person reads them in their time zone: "Mon 1 Dec, 09:00" (the year only when it is not the current
 * one), and the wall-clock fields of an instant in a zone. Pure; Intl does the zone arithmetic.
 */

export function isTimeZone(zone: string): boolean {
  if (!zone.trim()) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** Mon, Tue, … */
  weekday: string;
}

const partsFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of `at` in `timeZone`. */
export function wallClock(at: Date | number, timeZone: string): WallClock {
  let format = partsFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
      hourCycle: 'h23',
    });
    partsFormats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: String(parts.weekday),
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad = (value: number) => String(value).padStart(2, '0');

export function clockTime(hour: number, minute: number): string {
  return `${pad(hour)}:${pad(minute)}`;
}

/**
 * "Mon 1 Dec, 09:00" in `timeZone`; "Mon 1 Dec 2027, 09:00" when the year differs from `now`'s there (or when
 * `withYear` says so).
 */
export function formatLocal(at: Date | number, timeZone: string, options: { now?: number; withYear?: boolean } = {}): string {
  const local = wallClock(at, timeZone);
  const showYear = options.withYear ?? (options.now !== undefined && wallClock(options.now, timeZone).year !== local.year);
  return `${local.weekday} ${local.day} ${MONTHS[local.month - 1]}${showYear ? ` ${local.year}` : ''}, ${clockTime(local.hour, local.minute)}`;
}

/** "2026-12-01T09:00:00": the wall-clock time of `at` in `timeZone`, as an ISO 8601 local date-time. */
export function localIso(at: Date | number, timeZone: string): string {
  const l = wallClock(at, timeZone);
  return `${l.year}-${pad(l.month)}-${pad(l.day)}T${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)}`;
}

/** "2 h 5 min", "3 days 4 h", "45 s". */
export function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} days ${hours % 24} h` : `${days} days`;
}
