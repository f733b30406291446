/** Windows and old-Mac line endings → "\n", so every rule below only has to know one kind of line break. */
export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
