/**
 * What a make_chart call is called, worked out the same way where it is posted (tools/make-chart.ts) and where the
 * console shows it again (console/run-outputs.ts): the spec as an object, its title, and the PNG's file name.
 */

/** The spec as an object, whether the model sent an object or JSON text; undefined for anything else. */
export function specObjectOf(spec: unknown): Record<string, unknown> | undefined {
  let value = spec;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The spec's title (a string or {text}), else the result's name without ".csv". */
export function chartTitle(spec: Record<string, unknown> | undefined, resultName: string): string {
  const title = spec?.title;
  if (typeof title === 'string' && title.trim()) return title.trim();
  if (title && typeof title === 'object' && typeof (title as { text?: unknown }).text === 'string') return (title as { text: string }).text;
  return resultName.replace(/\.csv$/, '');
}

/** "sales.q1.csv" → "sales.q1.chart.png". */
export function chartFileName(resultName: string): string {
  return `${resultName.replace(/\.csv$/, '')}.chart.png`;
}
