/**
 * mcp.json: the `mcpServers` format other MCP clients already use (`.mcp.json`), plus threadwise's approval and
 * scoping settings per server. Parsing is pure — text, environment and file name in, servers or sentences out — so
 * every problem a person can make in the file is tested without touching the disk. Each problem is one line that
 * names the file, the server and what to change; all of them are reported at once.
 */
import { z } from 'zod';
import { expandVariables } from './expand-variables';
import { MAX_SERVER_NAME_LENGTH, sanitiseNamePart, SERVER_TOOL_SEPARATOR } from './tool-names';
import { messageOf } from '../core/errors';

export type McpTransportConfig =
  | {
      kind: 'http';
      url: string;
      headers: Record<string, string>;
      /** `"type": "sse"`: only the older HTTP+SSE protocol (otherwise Streamable HTTP, falling back to it). */
      sseOnly: boolean;
    }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string };

export interface McpServerConfig {
  /** The key in mcpServers, as written. */
  name: string;
  transport: McpTransportConfig;
  /** `ask`: every call waits for a person, except `autoApprove`; `auto`: no call waits. */
  approval: 'ask' | 'auto';
  /** Tool names (as the server names them) that run without asking under `ask`. */
  autoApprove: string[];
  /**
   * `trustAnnotations: true`: under `ask`, a tool the server annotates `readOnlyHint: true` (and not
   * `destructiveHint: true`) runs without asking, as if listed in autoApprove. Off unless set: annotations are the
   * server's own claims.
   */
  trustAnnotations?: boolean;
  /** Tool names never offered to the model. */
  disabledTools: string[];
  /** Slack channel ids where this server's tools are offered; undefined = everywhere. */
  channels?: string[];
  /** Per call. */
  timeoutMs: number;
  /**
   * `"auth": "oauth"`: each person connects their own account (OAuth 2.1 with PKCE, mcp/oauth/); calls run with the
   * speaker's token only. Absent: the shared credential in `headers`, as before.
   */
  auth?: McpOAuthConfig;
}

interface McpOAuthConfig {
  kind: 'oauth';
  /** Pre-registered client, for servers without dynamic client registration. */
  clientId?: string;
  clientSecret?: string;
  /** Scopes to ask for (space-separated in the request); default what the server's metadata lists. */
  scopes?: string[];
}

export interface McpConfig {
  /** The file the servers came from; undefined when there is none. */
  source?: string;
  servers: McpServerConfig[];
  /**
   * Values that must never reach a log: header values, env values and secret-looking variables expanded into a
   * URL or arguments. Hand them to the logger's redactor.
   */
  secrets: string[];
}

export type McpConfigResult = { ok: true; config: McpConfig } | { ok: false; problems: string[] };

const DEFAULT_MCP_TIMEOUT_SECONDS = 60;
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SECRET_VARIABLE = /TOKEN|KEY|SECRET|PASS|AUTH|CRED|PAT\b|COOKIE|SESSION/i;

/** What each setting must be, in the words a person fixing the file needs. */
const SETTINGS: Record<string, string> = {
  type: '"stdio", "http" or "sse"',
  url: 'the server’s URL, e.g. "https://mcp.example.com/mcp"',
  headers: 'an object of header names to text, e.g. {"Authorization": "Bearer ${TOKEN}"}',
  command: 'the program to start, e.g. "npx"',
  args: 'a list of strings',
  env: 'an object of variable names to text, e.g. {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}',
  cwd: 'a folder path',
  disabled: 'true or false',
  approval: '"ask" (every call waits for a person) or "auto" (calls run without asking)',
  autoApprove: 'a list of tool names',
  trustAnnotations: 'true (tools the server marks read-only run without asking) or false',
  disabledTools: 'a list of tool names',
  channels: 'a list of Slack channel ids, e.g. ["C0123ABC"]',
  timeoutSeconds: 'a whole number of seconds from 1 to 3600',
  auth: '"oauth" (each person connects their own account), or left out for the shared credential in "headers"',
  clientId: 'the OAuth client id registered for threadwise at that server',
  clientSecret: 'the OAuth client secret that goes with "clientId", e.g. "${JIRA_CLIENT_SECRET}"',
  scopes: 'a list of OAuth scopes, e.g. ["read:jira-work"]',
};
/** Settings whose values may be secrets: a problem with them never quotes the value. */
const SECRET_SETTINGS = new Set(['headers', 'env', 'url', 'args', 'clientSecret']);

const toolNames = z.array(z.string().min(1));
const serverSchema = z.strictObject({
  type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
  url: z.string().min(1).optional(),
  headers: z.record(z.string().regex(HEADER_NAME), z.string()).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string().min(1), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  disabled: z.boolean().optional(),
  approval: z.enum(['ask', 'auto']).optional(),
  autoApprove: toolNames.optional(),
  trustAnnotations: z.boolean().optional(),
  disabledTools: toolNames.optional(),
  channels: z.array(z.string().regex(CHANNEL_ID)).optional(),
  timeoutSeconds: z.number().int().min(1).max(3600).optional(),
  auth: z.literal('oauth').optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  scopes: z.array(z.string().regex(/^\S+$/)).optional(),
});
type RawServer = z.output<typeof serverSchema>;

export function parseMcpConfig(text: string, env: Record<string, string | undefined>, fileName: string): McpConfigResult {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`${fileName} is not valid JSON: ${describeJsonError(error, text)}`] };
  }
  const servers = (document as { mcpServers?: unknown } | null)?.mcpServers;
  if (!isPlainObject(document) || !isPlainObject(servers)) {
    return { ok: false, problems: [`${fileName} must hold {"mcpServers": {"<name>": {…}, …}} at the top level, as other MCP clients’ .mcp.json does`] };
  }

  const problems: string[] = [];
  const parsed: McpServerConfig[] = [];
  const secrets = new Set<string>();
  const seen = new Map<string, string>();
  for (const [name, raw] of Object.entries(servers)) {
    const where = `${fileName}: server "${name}"`;
    const nameProblem = checkServerName(name, seen);
    if (nameProblem) {
      problems.push(`${where}: ${nameProblem}`);
      continue;
    }
    if (!isPlainObject(raw)) {
      problems.push(`${where} must be an object with "url" (an HTTP server) or "command" (a program started over stdio)`);
      continue;
    }
    const result = serverSchema.safeParse(raw);
    if (!result.success) {
      problems.push(...result.error.issues.map((issue) => `${where}: ${describeIssue(issue, raw)}`));
      continue;
    }
    if (result.data.disabled) continue;
    const server = buildServer(name, result.data, env, where, secrets);
    if (typeof server === 'string') problems.push(server);
    else parsed.push(server);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, config: { source: fileName, servers: parsed, secrets: [...secrets] } };
}

function checkServerName(name: string, seen: Map<string, string>): string | undefined {
  const sanitised = sanitiseNamePart(name);
  if (!/[A-Za-z0-9]/.test(sanitised)) return 'the name needs at least one letter or digit (tools are named "<server>__<tool>")';
  if (sanitised.length > MAX_SERVER_NAME_LENGTH) {
    return `the name is longer than ${MAX_SERVER_NAME_LENGTH} characters; shorten it so its tools’ names fit the model’s 64-character limit`;
  }
  if (sanitised.includes(SERVER_TOOL_SEPARATOR)) return 'the name may not contain "__", which separates server and tool in tool names';
  const other = seen.get(sanitised);
  if (other !== undefined) return `the model would see it as "${sanitised}", like server "${other}"; rename one of them`;
  seen.set(sanitised, name);
  return undefined;
}

function buildServer(
  name: string,
  raw: RawServer,
  env: Record<string, string | undefined>,
  where: string,
  secrets: Set<string>,
): McpServerConfig | string {
  const shape = checkShape(raw);
  if (shape) return `${where}: ${shape}`;

  const missing = new Set<string>();
  const expand = (text: string, secret: 'always' | 'by-name' | 'never') => {
    const expansion = expandVariables(text, env);
    expansion.missing.forEach((variable) => missing.add(variable));
    if (secret === 'always') addSecret(secrets, expansion.value);
    if (secret !== 'never') {
      expansion.used.forEach((variable, i) => {
        if (secret === 'always' || SECRET_VARIABLE.test(variable)) addSecret(secrets, expansion.substituted[i]!);
      });
    }
    return expansion.value;
  };
  const expandRecord = (record: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value, 'always')]));

  let transport: McpTransportConfig;
  if (raw.url !== undefined) {
    const url = expand(raw.url, 'by-name');
    transport = { kind: 'http', url, headers: expandRecord(raw.headers), sseOnly: raw.type === 'sse' };
    if (missing.size === 0) {
      const urlProblem = checkUrl(url);
      if (urlProblem) return `${where}: "url" ${urlProblem}`;
      const password = new URL(url).password;
      if (password) addSecret(secrets, decodeURIComponent(password));
    }
  } else {
    transport = {
      kind: 'stdio',
      command: expand(raw.command!, 'never'),
      args: (raw.args ?? []).map((arg) => expand(arg, 'by-name')),
      env: expandRecord(raw.env),
      ...(raw.cwd === undefined ? {} : { cwd: expand(raw.cwd, 'never') }),
    };
  }
  if (missing.size > 0) return missingVariables(where, missing);
  let auth: McpOAuthConfig | undefined;
  if (raw.auth === 'oauth') {
    const clientSecret = raw.clientSecret === undefined ? undefined : expand(raw.clientSecret, 'always');
    const clientId = raw.clientId === undefined ? undefined : expand(raw.clientId, 'never');
    if (missing.size > 0) return missingVariables(where, missing);
    auth = {
      kind: 'oauth',
      ...(clientId === undefined ? {} : { clientId }),
      ...(clientSecret === undefined ? {} : { clientSecret }),
      ...(raw.scopes === undefined ? {} : { scopes: raw.scopes }),
    };
  }
  return {
    name,
    transport,
    approval: raw.approval ?? 'ask',
    autoApprove: raw.autoApprove ?? [],
    ...(raw.trustAnnotations ? { trustAnnotations: true } : {}),
    disabledTools: raw.disabledTools ?? [],
    ...(raw.channels === undefined ? {} : { channels: raw.channels }),
    timeoutMs: (raw.timeoutSeconds ?? DEFAULT_MCP_TIMEOUT_SECONDS) * 1000,
    ...(auth ? { auth } : {}),
  };
}

function missingVariables(where: string, missing: Set<string>): string {
  const names = [...missing];
  const list = names.map((variable) => `\${${variable}}`).join(', ');
  return `${where} uses ${list}, but ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not set; set ${names.length === 1 ? 'it' : 'them'} in the environment, or write \${NAME:-default} for a default`;
}

/** url vs command, and the settings that belong to only one of them. */
function checkShape(raw: RawServer): string | undefined {
  if (raw.url !== undefined && raw.command !== undefined) {
    return 'has both "url" and "command"; give "url" for an HTTP server or "command" for a program started over stdio, not both';
  }
  if (raw.url === undefined && raw.command === undefined) {
    return 'needs "url" (an HTTP server) or "command" (a program started over stdio)';
  }
  if (raw.url !== undefined) {
    if (raw.type === 'stdio') return 'says "type": "stdio" but gives a "url"; use "command" for a stdio server, or drop "type"';
    const misplaced = (['args', 'env', 'cwd'] as const).filter((key) => raw[key] !== undefined);
    if (misplaced.length > 0) return `${quoteList(misplaced)} ${misplaced.length === 1 ? 'applies' : 'apply'} only to "command" servers; for an HTTP server, pass credentials in "headers"`;
  } else {
    if (raw.type !== undefined && raw.type !== 'stdio') return `says "type": "${raw.type}" but gives a "command"; give a "url" for an HTTP server, or drop "type"`;
    if (raw.headers !== undefined) return '"headers" apply only to "url" servers; for a command, pass credentials in "env"';
  }
  return checkOAuthShape(raw);
}

/** `"auth": "oauth"` and the settings that only make sense with it. */
function checkOAuthShape(raw: RawServer): string | undefined {
  const oauthOnly = (['clientId', 'clientSecret', 'scopes'] as const).filter((key) => raw[key] !== undefined);
  if (raw.auth !== 'oauth') {
    if (oauthOnly.length === 0) return undefined;
    return `${quoteList(oauthOnly)} ${oauthOnly.length === 1 ? 'applies' : 'apply'} only with "auth": "oauth"; add it for per-person sign-in, or remove ${oauthOnly.length === 1 ? 'it' : 'them'}`;
  }
  if (raw.command !== undefined) {
    return '"auth": "oauth" needs an HTTP server ("url"): a program started over stdio cannot ask people to sign in; pass its credentials in "env" instead';
  }
  if (raw.type === 'sse') return '"auth": "oauth" needs Streamable HTTP; drop "type": "sse" (the older HTTP+SSE protocol is not used with per-person sign-in)';
  if (raw.headers !== undefined) {
    return 'has both "auth": "oauth" and "headers": a per-person server is called with each person’s own token, so a shared credential in "headers" would be ignored or, worse, mixed in; remove "headers" (or "auth" to keep using the shared credential)';
  }
  if (raw.clientSecret !== undefined && raw.clientId === undefined) return '"clientSecret" needs "clientId" beside it (the client registered for threadwise at that server)';
  return undefined;
}

function checkUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `must start with http:// or https:// (it starts with ${parsed.protocol}//)`;
    return undefined;
  } catch {
    return 'is not a valid URL; write it like "https://mcp.example.com/mcp"';
  }
}

function describeIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => {
        const suggestion = closestSetting(key);
        return `unknown setting "${key}"${suggestion ? `; did you mean "${suggestion}"?` : `; known settings are ${quoteList(Object.keys(SETTINGS))}`}`;
      })
      .join('; ');
  }
  const [key, ...rest] = issue.path.map(String);
  if (key === undefined || !(key in SETTINGS)) return issue.message;
  const at = rest.length > 0 ? ` (at ${key}${rest.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join('')})` : '';
  if ((key === 'headers' || key === 'env') && issue.code === 'invalid_key') {
    return `"${key}" has a name that is not allowed${at}; ${key === 'headers' ? 'header names are letters, digits and -' : 'variable names must not be empty'}`;
  }
  const got = SECRET_SETTINGS.has(key) ? '' : ` (got ${preview(valueAt(raw, issue.path))})`;
  return `"${key}" must be ${SETTINGS[key]}${got}${at}`;
}

function closestSetting(key: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of Object.keys(SETTINGS)) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(best.name.length / 4)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function valueAt(raw: unknown, path: PropertyKey[]): unknown {
  let value = raw;
  for (const part of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[part];
  return value;
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** JSON.parse's message, with a line and column instead of a character offset. */
function describeJsonError(error: unknown, text: string): string {
  const message = messageOf(error);
  const position = /at position (\d+)/.exec(message);
  if (!position) return message;
  const offset = Number(position[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `${message.replace(/\s*in JSON at position \d+.*$/, '').replace(/,?\s*"[^"]*" is not valid JSON$/, '')} at line ${line}, column ${column}`;
}

function addSecret(secrets: Set<string>, value: string): void {
  const trimmed = value.trim();
  if (!trimmed) return;
  secrets.add(trimmed);
  // "Bearer abc…" / "token abc…": the credential alone may also be logged, e.g. inside an error message.
  const credential = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(trimmed)?.[1];
  if (credential) secrets.add(credential);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quoteList(items: readonly string[]): string {
  return items.map((item) => `"${item}"`).join(', ');
}
