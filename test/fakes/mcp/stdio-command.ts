/**
 * How a test starts the fake servers over stdio: node with tsx, so the TypeScript entry runs as it is. The
 * result drops into an mcp.json server entry (`command`, `args`) or a McpServerConfig transport.
 */
import { fileURLToPath } from 'node:url';

export const STDIO_SERVER_ENTRY = fileURLToPath(new URL('./stdio-server.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function fakeStdioServer(kind: 'tracker' | 'misbehaving' | 'files' | 'memory' = 'tracker', env: Record<string, string> = {}) {
  return { kind: 'stdio' as const, command: process.execPath, args: ['--import', 'tsx', STDIO_SERVER_ENTRY, kind], env, cwd: REPO_ROOT };
}
