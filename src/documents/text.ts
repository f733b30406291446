/**
 * Plain text, markdown, JSON, code and logs: decoded from whatever encoding they are in and returned as they are.
 * Markdown headings become the outline, so a long README can be navigated like a DOCX.
 */
import { LANGUAGE_NOTE_PREFIX, type ExtractedDocument } from '../core/thread-file';
import { decodeText } from './decode-text';
import { DocumentBuilder } from './document-builder';

export async function readText(bytes: Uint8Array, name: string): Promise<ExtractedDocument> {
  const { text, encoding } = decodeText(bytes);
  const normalized = text.replace(/\r\n?/g, '\n');
  const builder = new DocumentBuilder().append(normalized);
  if (/\.(md|markdown)$/i.test(name)) addMarkdownHeadings(builder, normalized);
  const language = languageOf(name);
  if (language) builder.addNote(language);
  if (encoding !== 'utf-8') builder.addNote(`decoded from ${encoding}`);
  return builder.build();
}

function addMarkdownHeadings(builder: DocumentBuilder, text: string): void {
  let inFence = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) builder.addHeading(heading[2]!, heading[1]!.length, offset);
    offset += line.length + 1;
  }
}

const languages: Record<string, string> = {
  json: 'JSON', jsonl: 'JSON Lines', ndjson: 'JSON Lines', yaml: 'YAML', yml: 'YAML', toml: 'TOML', xml: 'XML',
  ini: 'INI', cfg: 'config', conf: 'config', env: 'environment file', sql: 'SQL', graphql: 'GraphQL', proto: 'Protocol Buffers',
  js: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript', jsx: 'JavaScript (JSX)', ts: 'TypeScript', tsx: 'TypeScript (TSX)',
  py: 'Python', rb: 'Ruby', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', kts: 'Kotlin', scala: 'Scala', swift: 'Swift',
  c: 'C', h: 'C header', cc: 'C++', cpp: 'C++', hpp: 'C++ header', cs: 'C#', php: 'PHP', pl: 'Perl', sh: 'shell script',
  bash: 'shell script', zsh: 'shell script', fish: 'shell script', ps1: 'PowerShell', r: 'R', lua: 'Lua', dart: 'Dart',
  ex: 'Elixir', exs: 'Elixir', erl: 'Erlang', hs: 'Haskell', clj: 'Clojure', vue: 'Vue', svelte: 'Svelte', css: 'CSS',
  scss: 'SCSS', less: 'Less', tex: 'LaTeX', diff: 'diff', patch: 'diff', properties: 'Java properties', gradle: 'Gradle',
  tf: 'Terraform', hcl: 'HCL', log: 'log', dockerfile: 'Dockerfile', makefile: 'Makefile',
};

/** "language: TypeScript", so the model reads code as code; undefined for prose (.txt, .md). */
function languageOf(name: string): string | undefined {
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? '';
  const extension = base.includes('.') ? base.slice(base.lastIndexOf('.') + 1) : base;
  const language = languages[extension] ?? (/\.log\.\d+$|\.out$/.test(base) ? 'log' : undefined);
  return language ? `${LANGUAGE_NOTE_PREFIX}${language}` : undefined;
}
