/**
 * Slack message timestamps ("1700000000.000100") ordered numerically. Lexical order breaks when the seconds part
 * changes length, and parseFloat would round away the microseconds that tell two messages of one second apart.
 */
export function compareSlackTs(a: string, b: string): number {
  const [aSeconds = '', aFraction = ''] = a.split('.');
  const [bSeconds = '', bFraction = ''] = b.split('.');
  return (
    compareDigits(aSeconds.padStart(12, '0'), bSeconds.padStart(12, '0')) ||
    compareDigits(aFraction.padEnd(6, '0'), bFraction.padEnd(6, '0'))
  );
}

function compareDigits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
