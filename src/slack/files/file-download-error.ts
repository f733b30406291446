import { ThreadwiseError } from '../../core/errors';

/**
 * A download that failed for a reason of the moment (Slack down, rate limited, a refused host), as opposed to a
 * FileReadError, which says something lasting about the file. Never cached: the next question tries again.
 */
export class FileDownloadError extends ThreadwiseError<'download_failed'> {
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
    super('download_failed', message, { ...options, context: { file: fileName, ...(status === undefined ? {} : { status }) } });
  }
}
