/** A DuckDB identifier in double quotes, inner quotes doubled: sheet names with spaces or quotes stay one name. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal, inner quotes doubled (for paths the engine itself chose, never for the model's text). */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
