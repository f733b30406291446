/**
 * Where mcp.json comes from: MCP_CONFIG when set (and then it must exist), else ./mcp.json when there is one, else
 * no servers at all — MCP is opt-in and a fresh install needs no file.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseMcpConfig, type McpConfigResult } from './mcp-config';
import { codeOf, messageOf } from '../core/errors';

const DEFAULT_MCP_CONFIG_FILE = 'mcp.json';

export interface LoadMcpConfigInput {
  /** MCP_CONFIG, when set. */
  path?: string;
  /** For `${VAR}` in the file. */
  env: Record<string, string | undefined>;
  /** Where ./mcp.json is looked for; default the process's working directory. */
  cwd?: string;
}

export async function loadMcpConfig({ path, env, cwd = process.cwd() }: LoadMcpConfigInput): Promise<McpConfigResult> {
  const explicit = path !== undefined && path.trim() !== '';
  const file = explicit ? resolve(cwd, path.trim()) : resolve(cwd, DEFAULT_MCP_CONFIG_FILE);
  const shown = explicit ? path.trim() : `./${DEFAULT_MCP_CONFIG_FILE}`;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' && !explicit) return { ok: true, config: { servers: [], secrets: [] } };
    if (code === 'ENOENT') return { ok: false, problems: [`MCP_CONFIG names ${shown}, which does not exist (looked at ${file}); fix the path or unset MCP_CONFIG`] };
    if (code === 'EISDIR') return { ok: false, problems: [`${shown} is a folder; MCP_CONFIG must name a JSON file`] };
    if (code === 'EACCES') return { ok: false, problems: [`${shown} cannot be read (permission denied); let the user running threadwise read it`] };
    return { ok: false, problems: [`${shown} cannot be read: ${messageOf(error)}`] };
  }
  return parseMcpConfig(text, env, shown);
}
