/** Numbers as people read them in the thread and as the model reads them in tool results. */

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** "512 bytes", "42 KB", "3.4 MB", "1 GB": binary units, one decimal where it helps. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
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
