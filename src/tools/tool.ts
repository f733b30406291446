import type { z } from 'zod';
import type { ApprovalPrompt } from '../core/approval';
import type { ThreadFileAccess } from '../files/thread-file-access';
import type { ResultStore } from '../tables/result-store';
import type { TableAccess } from '../tables/table-access';
import type { ThreadOutput } from './thread-output';

/** Reads skills for load_skill. */
export interface SkillReader {
  /** A skill's body by name, or a file inside a skill's folder by relative path ("jira/templates/bug.md"). */
  read(nameOrPath: string): Promise<{ name: string; path: string; content: string }>;
}

export interface ToolContext {
  files: ThreadFileAccess;
  skills: SkillReader;
  /** Aborted on cancel, run timeout or this tool's own timeout. */
  signal: AbortSignal;
  /** Tokens still free in the model's context window, as of the last request. */
  tokensLeft(): number;
  /** Show an image to the model on the next user turn (tool messages cannot carry images). */
  showImage(image: { fileId: string; name: string; dataUrl: string }): void;
  /** A compact line for the thread's history of what this run read: "F1 p. 3–5", "skill jira". */
  recordActivity(entry: string): void;
  /** For tools that run a sub-agent (ask_file). */
  subAgent?: SubAgentRunner;
  /** SQL over the thread's tabular files and the results kept as its files (query_table, make_chart, attach_file). */
  tables?: ThreadTables;
  /** Where charts, tables and attached files go: the Slack thread, or the terminal's folder. */
  output?: ThreadOutput;
}

/** A thread's tables for one run: the engine's view by file id, and the query results (virtual files "F1.q1"). */
export interface ThreadTables {
  access: TableAccess;
  results: ResultStore;
}

export interface SubAgentRunner {
  /** Answers a question about one file in a context of its own; returns the answer with citations. */
  askFile(fileId: string, question: string, signal: AbortSignal): Promise<string>;
}

export interface Tool<Parameters = any> {
  name: string;
  /** What the model reads: what it does, when to use it, and the shape of what it returns. */
  description: string;
  parameters: z.ZodType<Parameters>;
  /** The arguments' JSON Schema as the model sees it, when it comes from elsewhere (an MCP server's). */
  jsonSchema?: Record<string, unknown>;
  /** The status line while it runs: "reading report.pdf…". */
  describeProgress(args: Parameters, context: ToolContext): string;
  /**
   * Set for a tool whose calls wait for a person's approval before they run: what to show them. Undefined for a
   * call that may run without asking.
   */
  approval?(args: Parameters): ApprovalPrompt | undefined;
  /** Returns text for the model. Throwing is fine: the loop turns errors into a result the model can act on. */
  execute(args: Parameters, context: ToolContext): Promise<string>;
}
