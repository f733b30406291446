/**
 * The current date and time as the reminder states it: "2026-05-12 14:03, Tuesday (Europe/Berlin, GMT+2)". The
 * clock and the zone are parameters, so tests and rebuilds are deterministic.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

// Building a DateTimeFormat is slow (tenths of a millisecond) and the zone rarely changes: keep one per zone.
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'long',
        hourCycle: 'h23',
        timeZoneName: 'shortOffset',
      });
    } catch (error) {
      throw new RangeError(`Unknown time zone "${timeZone}" (expected an IANA name such as "Europe/Berlin")`, {
        cause: error,
      });
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function formatNow(now: Date, timeZone: string): string {
  if (Number.isNaN(now.getTime())) throw new RangeError('formatNow: the clock gave an invalid Date');
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(now).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}, ${parts.weekday} (${timeZone}, ${parts.timeZoneName})`;
}
