/**
 * One base for threadwise's own errors: a stable `code` to branch on (callers compare codes, never classes), a
 * sentence fit for the person or model reading it, and the context a log line needs (which file, thread, server).
 */
export class ThreadwiseError<Code extends string = string> extends Error {
  override readonly name: string = 'ThreadwiseError';
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown; context?: Record<string, unknown> },
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
