/**
 * One base for threadwise's own errors: a stable `code` to branch on (callers compare codes, never classes), a
 * sentence fit for the person or model reading it, and the context a log line needs (which file, thread, server).
 *
 * And the few helpers every catch block needs, written once: `messageOf` (the sentence of anything thrown),
 * `asError`, `causesOf` / `findCause` (the walk down `cause`), `codeOf` (the code a Node, driver or library error carries).
 */
export interface ThreadwiseErrorOptions {
  cause?: unknown;
  context?: Record<string, unknown>;
}

export class ThreadwiseError<Code extends string = string> extends Error {
  override readonly name: string = 'ThreadwiseError';
  constructor(
    readonly code: Code,
    message: string,
    options?: ThreadwiseErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.context = options?.context ?? {};
  }
  readonly context: Record<string, unknown>;
}

/** The code of a threadwise error, or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ThreadwiseError ? error.code : undefined;
}

/**
 * The sentence of anything thrown: an Error's message; the `message` of an error-shaped object (an error from
 * another realm or thread, a library's plain rejection); else the value as a string.
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  try {
    return String(error);
  } catch {
    // An object without a prototype (no toString) cannot be made a string by String().
    return Object.prototype.toString.call(error);
  }
}

/** What was thrown, as an Error: itself when it is one, else an Error with its message (for APIs that take an Error). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(messageOf(error));
}

/** The `code` an error carries when it is a string: ENOENT, 23505 (SQLSTATE), ERR_PARSE_ARGS_…, a threadwise code. */
export function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The error code of a failed Slack Web API call ("channel_not_found", "invalid_auth"), from its `data.error`. */
export function slackErrorCode(error: unknown): string | undefined {
  const data = typeof error === 'object' && error !== null ? (error as { data?: unknown }).data : undefined;
  const code = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** How deep a cause chain is followed: far past any real one, and a bound on a chain built in a loop. */
const MAX_CAUSES = 32;

/**
 * The error and its causes, outermost first. `next` says where an error keeps its cause (`cause` unless told, e.g.
 * Slack's `original`). Stops at a value seen before (a cycle) and after 32 links.
 */
export function causesOf(error: unknown, next: (error: object) => unknown = (e) => (e as { cause?: unknown }).cause): unknown[] {
  const chain: unknown[] = [];
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && current !== null && !seen.has(current) && chain.length < MAX_CAUSES; ) {
    chain.push(current);
    seen.add(current);
    current = typeof current === 'object' || typeof current === 'function' ? next(current) : undefined;
  }
  return chain;
}

/** The first of the error and its causes (outermost first) that `test` accepts. */
export function findCause<T>(error: unknown, test: (cause: unknown) => cause is T): T | undefined;
export function findCause(error: unknown, test: (cause: unknown) => boolean): unknown;
export function findCause(error: unknown, test: (cause: unknown) => boolean): unknown {
  return causesOf(error).find(test);
}
