/**
 * The fake MCP servers as a program speaking stdio, the way `npx some-mcp-server` does:
 *   node --import tsx test/fakes/mcp/stdio-server.ts [tracker|misbehaving|files|memory]
 * A test cannot read the state of another process, so the hooks are files and variables:
 *   FAKE_MCP_CALL_LOG=<file>   one JSON line per tool call that reached the server ({tool, args})
 *   FAKE_MCP_PID_FILE=<file>   starts a helper child (as real servers do) and writes {"server": pid, "child": pid}
 *   FAKE_MCP_STUBBORN=1        ignores SIGTERM and the end of stdin (server and child): only SIGKILL ends them
 *   FAKE_MCP_FAIL_AT_START=msg writes msg to stderr and exits with code 3 before speaking MCP
 *   FAKE_MCP_SECRET_ECHO=1     writes its environment's FAKE_MCP_TOKEN to stderr (to prove stderr is redacted)
 *   FAKE_MCP_HANG_AT_START=1   runs but never speaks MCP, as a server stuck at start does (waiting for a download, a lock)
 */
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildFilesServer, createFilesState } from './files';
import { buildMemoryServer } from './memory';
import { buildMisbehavingServer, createMisbehavingState } from './misbehaving';
import { buildTrackerServer, createTrackerState } from './tracker';

const kind = process.argv[2] ?? 'tracker';
const env = process.env;

if (env.FAKE_MCP_FAIL_AT_START) {
  process.stderr.write(`${env.FAKE_MCP_FAIL_AT_START}\n`);
  process.exit(3);
}
if (env.FAKE_MCP_HANG_AT_START) {
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
  await new Promise(() => {});
}
if (env.FAKE_MCP_SECRET_ECHO) process.stderr.write(`starting with token ${env.FAKE_MCP_TOKEN}\n`);

const stubborn = env.FAKE_MCP_STUBBORN === '1';
if (stubborn) process.on('SIGTERM', () => {});

if (env.FAKE_MCP_PID_FILE) {
  const helper = `${stubborn ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['-e', helper], { stdio: 'ignore' });
  writeFileSync(env.FAKE_MCP_PID_FILE, JSON.stringify({ server: process.pid, child: child.pid }));
}

const logCall = (call: { tool: string; args: Record<string, unknown> }) => {
  if (env.FAKE_MCP_CALL_LOG) appendFileSync(env.FAKE_MCP_CALL_LOG, `${JSON.stringify(call)}\n`);
};

let server;
if (kind === 'misbehaving') {
  const state = createMisbehavingState();
  const push = state.calls.push.bind(state.calls);
  state.calls.push = (...calls) => {
    calls.forEach(logCall);
    return push(...calls);
  };
  server = buildMisbehavingServer(state);
} else if (kind === 'files') {
  const state = createFilesState();
  state.onCall = logCall;
  server = buildFilesServer(state);
} else if (kind === 'memory') {
  server = buildMemoryServer();
} else {
  const state = createTrackerState();
  state.onCall = logCall;
  server = buildTrackerServer(state);
}

const transport = new StdioServerTransport();
await server.connect(transport);
if (stubborn) {
  // Keep running after stdin ends, as badly behaved servers do.
  setInterval(() => {}, 1 << 30);
}
