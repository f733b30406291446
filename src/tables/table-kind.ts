/** Which thread files query_table can read, by name and MIME type (what Slack reports for an upload). */
import type { TableKind } from './types';

const BY_EXTENSION: Record<string, TableKind> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  parquet: 'parquet',
  pq: 'parquet',
  json: 'json',
  jsonl: 'json',
  ndjson: 'json',
};

const BY_MIME: Record<string, TableKind> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'text/tab-separated-values': 'tsv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.apache.parquet': 'parquet',
  'application/x-parquet': 'parquet',
  'application/json': 'json',
  'application/x-ndjson': 'json',
};

/** The table kind of a file, or undefined when query_table cannot read it (the extension decides first). */
export function tableKindOf(file: { name: string; mimeType?: string }): TableKind | undefined {
  const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase();
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  return file.mimeType ? BY_MIME[file.mimeType.split(';')[0]!.trim().toLowerCase()] : undefined;
}
