import type { z } from 'zod';
import type { ApprovalPrompt } from '../core/approval';
import type { ExtractedDocument, ThreadFile } from '../core/thread-file';

/** A passage found by search_file, with where it sits so the model can peek around it and cite it. */
export interface SearchHit {
  fileId: string;
  fileName: string;
  /** "p. 37", "§ Results", "Sheet 'Budget'", "slide 4" */
  location: string;
  page?: number;
  start: number;
  end: number;
  text: string;
  /** The part of `text` that best shows why it matched, matched words marked «like this». */
  snippet: string;
  /** Why it matched, in a few words: the query words it holds, a phrase, which phrasing found it. */
  reason?: string;
  /** The passage's language ("German", "Chinese"), when its text gives it away: search in it next time. */
  language?: string;
  score: number;
}

export interface SearchOptions {
  signal?: AbortSignal;
  /** Longest excerpt per hit (shorter when the context is nearly full). */
  snippetChars?: number;
}

/** What the tools may do with the thread's files. Implemented by files/ for one thread; ids are thread-scoped. */
export interface ThreadFileAccess {
  list(): ThreadFile[];
  /** Throws UnknownFileError (listing the ids that exist) for an id not in this thread. */
  get(id: string): ThreadFile;
  /** The file's text (extracting on first use, cached after). Throws FileReadError. */
  readText(id: string, signal?: AbortSignal): Promise<ExtractedDocument>;
  /** Extract into a virtual file (id "F1.txt"), registered in the thread. */
  extract(id: string, signal?: AbortSignal): Promise<{ file: ThreadFile; document: ExtractedDocument }>;
  /** An image file as a data: URL within the byte cap. Throws FileReadError. */
  readImage(id: string, signal?: AbortSignal): Promise<{ dataUrl: string; width?: number; height?: number }>;
  /**
   * Best passages for a query; id "*" searches every file of the thread. `query` is one phrasing, or several
   * searched at once and fused (the person's words and the document's).
   */
  search(id: string, query: string | string[], limit: number, options?: SearchOptions): Promise<SearchHit[]>;
}

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
