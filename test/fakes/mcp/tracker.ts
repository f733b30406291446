/**
 * A small issue tracker as an MCP server, built with the official SDK: `search_issues` and `get_issue` read,
 * `create_issue` writes. The same server is served over Streamable HTTP (http-host.ts) and over stdio
 * (stdio-server.ts). Every call is counted in `state.calls` — the hook approval tests use to prove that a call did
 * (or did not) reach the server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface TrackerIssue {
  key: string;
  title: string;
  description: string;
  status: 'open' | 'in_progress' | 'done';
  labels: string[];
}

export interface TrackerCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface TrackerState {
  issues: TrackerIssue[];
  /** Every tool call that reached the server, in order. */
  calls: TrackerCall[];
  /** Called with each call as it arrives (the stdio server writes them to a file with this). */
  onCall?: (call: TrackerCall) => void;
}

const TRACKER_BASE_URL = 'https://tracker.example.test/browse/';

export function createTrackerState(issues: TrackerIssue[] = defaultIssues()): TrackerState {
  return { issues: issues.map((issue) => ({ ...issue, labels: [...issue.labels] })), calls: [] };
}

function defaultIssues(): TrackerIssue[] {
  return [
    { key: 'PROJ-1', title: 'Login page times out', description: 'SSO login hangs after 30 s.', status: 'in_progress', labels: ['auth'] },
    { key: 'PROJ-2', title: 'Export to CSV drops accents', description: 'Names like Zoë become Zo?.', status: 'open', labels: ['export'] },
    { key: 'PROJ-3', title: 'Dark mode contrast', description: 'Grey on grey in settings.', status: 'done', labels: ['ui'] },
  ];
}

export function callsTo(state: TrackerState, tool: string): TrackerCall[] {
  return state.calls.filter((call) => call.tool === tool);
}

/** A fresh McpServer over `state` (stateful HTTP needs one server per session; they share the state). */
export function buildTrackerServer(state: TrackerState): McpServer {
  const server = new McpServer({ name: 'tracker', version: '1.0.0' });
  const record = (tool: string, args: Record<string, unknown>) => {
    const call = { tool, args };
    state.calls.push(call);
    state.onCall?.(call);
  };

  server.registerTool(
    'search_issues',
    {
      description: 'Searches issues by words in their title or description. Returns matching issues with key, title and status.',
      inputSchema: {
        query: z.string().describe('Words to look for'),
        status: z.enum(['open', 'in_progress', 'done']).optional().describe('Only issues in this status'),
        limit: z.number().int().min(1).max(50).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, status, limit }) => {
      record('search_issues', { query, status, limit });
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const found = state.issues
        .filter((issue) => !status || issue.status === status)
        .filter((issue) => words.every((word) => `${issue.title} ${issue.description}`.toLowerCase().includes(word)))
        .slice(0, limit ?? 10);
      const issues = found.map(({ key, title, status: s }) => ({ key, title, status: s }));
      return {
        content: [
          {
            type: 'text',
            text: found.length ? found.map((i) => `${i.key} [${i.status}] ${i.title}`).join('\n') : `No issues match "${query}".`,
          },
        ],
        structuredContent: { issues },
      };
    },
  );

  server.registerTool(
    'get_issue',
    {
      description: 'Gets one issue by key, e.g. PROJ-1.',
      inputSchema: { key: z.string().describe('Issue key') },
      annotations: { readOnlyHint: true },
    },
    async ({ key }) => {
      record('get_issue', { key });
      const issue = state.issues.find((i) => i.key === key);
      if (!issue) return { isError: true, content: [{ type: 'text', text: `Issue ${key} does not exist.` }] };
      return {
        content: [
          {
            type: 'text',
            text: `${issue.key}: ${issue.title}\nStatus: ${issue.status}\nLabels: ${issue.labels.join(', ') || 'none'}\n\n${issue.description}`,
          },
        ],
      };
    },
  );

  server.registerTool(
    'create_issue',
    {
      description: 'Creates an issue. Returns its key and link.',
      inputSchema: {
        title: z.string().min(1).describe('One-line summary'),
        description: z.string().optional().describe('What happened, steps to reproduce, expected result'),
        labels: z.array(z.string()).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async ({ title, description, labels }) => {
      record('create_issue', { title, description, labels });
      const key = `PROJ-${state.issues.length + 1}`;
      state.issues.push({ key, title, description: description ?? '', status: 'open', labels: labels ?? [] });
      return {
        content: [{ type: 'text', text: `Created ${key}: ${title} — ${TRACKER_BASE_URL}${key}` }],
        structuredContent: { key, url: `${TRACKER_BASE_URL}${key}` },
      };
    },
  );

  return server;
}
