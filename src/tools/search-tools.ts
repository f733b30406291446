/**
 * `search_tools(query)`: when a channel has more MCP tools than a request should carry, the rest wait behind this
 * tool. It ranks them by the words of the query (BM25 over each tool's name, title, description and parameters) and
 * returns the best with their parameters; from then on they are offered to the model like any other tool, for the
 * rest of the run (see run-tools.ts). Approval is unchanged: a tool found here asks exactly as it would up front.
 */
import { z } from 'zod';
import type { Tool } from './tool';

export const SEARCH_TOOLS_NAME = 'search_tools';

export interface SearchableTool {
  tool: Tool;
  /** The server it belongs to, as named in mcp.json. */
  server: string;
  /** Its own name on that server. */
  action: string;
  title?: string;
  description: string;
  parameters: Record<string, unknown>;
  needsApproval: boolean;
}

const parameters = z.object({
  query: z.string().min(1).describe('A few words for what you need to do, e.g. "create a jira issue" or "read a file"'),
  limit: z.number().int().min(1).max(10).optional().describe('How many tools to return (default 5)'),
});

const DEFAULT_LIMIT = 5;
const EXAMPLES_PER_SERVER = 6;

export function createSearchToolsTool(hidden: SearchableTool[], onFound: (found: SearchableTool[]) => void): Tool<z.infer<typeof parameters>> {
  const index = buildIndex(hidden);
  return {
    name: SEARCH_TOOLS_NAME,
    description: [
      `Finds tools of the connected tool servers that are not listed here because there are many (${hidden.length} more): ${summarise(hidden)}.`,
      'Call it with a few words for what you need before saying a tool is missing; it returns the best-matching tools with their parameters, and you can call them by name right after.',
    ].join(' '),
    parameters,
    describeProgress: ({ query }) => `looking for a tool: ${query}…`,
    async execute({ query, limit }, context) {
      const found = rank(index, query).slice(0, limit ?? DEFAULT_LIMIT);
      context.recordActivity(`searched tools for "${query}"`);
      if (found.length === 0) {
        return `No tool matched "${query}". The servers behind search_tools are: ${summarise(hidden)}. Try other words (what the tool does, or its server), or answer without a tool.`;
      }
      onFound(found);
      const listed = found.map((entry) => ({
        name: entry.tool.name,
        server: entry.server,
        description: entry.description,
        parameters: entry.parameters,
        ...(entry.needsApproval ? { asksForApproval: true } : {}),
      }));
      // A JSON list, one tool a line: compact, and still easy to read.
      return `${found.length} tool${found.length === 1 ? '' : 's'} for "${query}", best first; call them by name now:\n[\n${listed.map((tool) => JSON.stringify(tool)).join(',\n')}\n]`;
    },
  };
}

/** "jira (40 tools, e.g. create_issue, get_issue, …), fs (14 tools, …)": what search_tools can reach. */
function summarise(hidden: SearchableTool[]): string {
  const byServer = new Map<string, string[]>();
  for (const entry of hidden) byServer.set(entry.server, [...(byServer.get(entry.server) ?? []), entry.action]);
  return [...byServer]
    .map(([server, actions]) => {
      const examples = actions.slice(0, EXAMPLES_PER_SERVER).join(', ');
      return `${server} (${actions.length} tool${actions.length === 1 ? '' : 's'}: ${examples}${actions.length > EXAMPLES_PER_SERVER ? ', …' : ''})`;
    })
    .join('; ');
}

// ---- ranking: BM25 over weighted fields ----

interface IndexedTool {
  entry: SearchableTool;
  /** Term → weighted frequency. */
  terms: Map<string, number>;
  length: number;
}

interface ToolIndex {
  tools: IndexedTool[];
  documentFrequency: Map<string, number>;
  averageLength: number;
}

const K1 = 1.2;
const B = 0.75;
/** A word in a tool's name (or its server's) says more about it than one in a long description. */
const NAME_WEIGHT = 3;
const TITLE_WEIGHT = 2;
const STOP_WORDS = new Set(
  'a an and are as at be by can do for from has have i in into is it its me my of on or our please that the their them then this to tool tools use using want we with you your'.split(' '),
);

function buildIndex(hidden: SearchableTool[]): ToolIndex {
  const tools = hidden.map((entry): IndexedTool => {
    const terms = new Map<string, number>();
    const add = (text: string | undefined, weight: number) => {
      for (const term of words(text ?? '')) terms.set(term, (terms.get(term) ?? 0) + weight);
    };
    add(`${entry.action} ${entry.server}`, NAME_WEIGHT);
    add(entry.title, TITLE_WEIGHT);
    add(entry.description, 1);
    add(describeParameters(entry.parameters), 1);
    const length = [...terms.values()].reduce((sum, n) => sum + n, 0);
    return { entry, terms, length };
  });
  const documentFrequency = new Map<string, number>();
  for (const tool of tools) for (const term of tool.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const averageLength = tools.reduce((sum, tool) => sum + tool.length, 0) / Math.max(1, tools.length);
  return { tools, documentFrequency, averageLength };
}

function rank(index: ToolIndex, query: string): SearchableTool[] {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const n = index.tools.length;
  const scored = index.tools.map((tool, order) => {
    let score = 0;
    for (const term of terms) {
      const tf = tool.terms.get(term);
      if (!tf) continue;
      const df = index.documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * tool.length) / Math.max(1, index.averageLength)));
    }
    return { tool, score, order };
  });
  return scored
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map((hit) => hit.tool.entry);
}

/** Parameter names and descriptions, recursively (enum values too): "path", "the file to read", … */
function describeParameters(schema: unknown, depth = 0): string {
  if (depth > 4 || typeof schema !== 'object' || schema === null) return '';
  const node = schema as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof node.description === 'string') parts.push(node.description);
  if (Array.isArray(node.enum)) parts.push(node.enum.filter((value) => typeof value === 'string').join(' '));
  if (typeof node.properties === 'object' && node.properties !== null) {
    for (const [name, child] of Object.entries(node.properties)) parts.push(name, describeParameters(child, depth + 1));
  }
  if (node.items) parts.push(describeParameters(node.items, depth + 1));
  return parts.join(' ');
}

/** Lower-case words, split at camelCase, snake_case and punctuation, plurals folded: "listIssues" → list, issue. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}
