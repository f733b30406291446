/** Numbers as people read them in the thread and as the model reads them in prompts and tool results. */

// A fixed locale, so the output never depends on the host.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 48000 → "48,000" */
export function formatCount(value: number): string {
  return grouped.format(value);
}

/** 512 → "512 B", 43008 → "42 KB", 3565158 → "3.4 MB", 1073741824 → "1 GB": binary units, one decimal below 10. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = value >= 10 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}

/** 12345 → "12k", 950 → "950": for approximate token sizes, where precision would only cost tokens. */
export function formatApproxTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.max(1, Math.round(tokens)));
  return tokens < 10_000 ? `${(tokens / 1000).toFixed(1)}k` : `${Math.round(tokens / 1000)}k`;
}
