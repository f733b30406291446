/**
 * A download that failed for a reason of the moment (Slack down, rate limited, a refused host), as opposed to a
 * FileReadError, which says something lasting about the file. Never cached: the next question tries again.
 */
export class FileDownloadError extends Error {
  override readonly name = 'FileDownloadError';
  constructor(
    /** The file's name, for logs and for whoever shows the message. */
    readonly fileName: string,
    /** One sentence naming the file and what to do. */
    message: string,
    /** HTTP status of the last attempt, when there was a response. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
