/**
 * One plain, specific sentence per reason a file could not be read, naming the file and saying what would help.
 * These go into the thread as they are and into tool results, so they promise nothing we cannot do.
 */
import { formatBytes } from '../core/format';
import { displayFileName, FileReadError, type FileErrorCode, type ThreadFile } from '../core/thread-file';

export interface FileErrorDetails {
  /** The file's size, for too_large. */
  sizeBytes?: number;
  /** The limit it went over, for too_large. */
  limitBytes?: number;
  /** For external files: "Google Drive", "Dropbox"… */
  service?: string;
  /** For timeouts: the limit in ms. */
  timeoutMs?: number;
}

type Describable = Pick<ThreadFile, 'name'> & Partial<Pick<ThreadFile, 'fileType' | 'mimeType' | 'sizeBytes'>>;

export function describeFileError(file: Describable, code: FileErrorCode, details: FileErrorDetails = {}): string {
  const name = displayFileName(file.name);
  switch (code) {
    case 'encrypted':
      return `I can't read ${name}: it is protected with a password. Share a copy without the password and I'll read it.`;
    case 'no_text_layer':
      return `I can't read the text of ${name}: it is a scan with no text layer. Share a searchable PDF or paste the part you need.`;
    case 'corrupt':
      return `I can't read ${name}: the file is damaged or cut short. Export or upload it again.`;
    case 'empty':
      return `${name} is empty: there is no text in it for me to read.`;
    case 'too_large': {
      const size = details.sizeBytes ?? file.sizeBytes;
      const parts = [size ? `it is ${formatBytes(size)}` : '', details.limitBytes ? `I read files up to ${formatBytes(details.limitBytes)}` : '']
        .filter(Boolean)
        .join(', and ');
      return `${name} is too large for me to read${parts ? `: ${parts}` : ''}. Share a smaller export or the part you need.`;
    }
    case 'unsupported': {
      const kind = file.fileType ? `${file.fileType.toUpperCase()} files` : 'this kind of file';
      return `I can't read ${name}: I don't know how to read ${kind}. Export it as PDF, DOCX or plain text and share that.`;
    }
    case 'timeout': {
      const limit = details.timeoutMs ? ` (over ${Math.round(details.timeoutMs / 1000)} s)` : '';
      return `Reading ${name} took too long${limit}, so I stopped. Ask again in a moment, or ask about a smaller part of it.`;
    }
    case 'out_of_memory':
      return `I stopped reading ${name}: it needs more memory than I can give one file. A smaller export or a split file would work.`;
    case 'no_access':
      return `I can't open ${name}: Slack says I don't have access to it. Add me to the channel it was shared in, or share it here again.`;
    case 'deleted':
      return `I can't open ${name}: it has been deleted from Slack.`;
    case 'external':
      return `I can't open ${name}: it is a link to ${details.service ?? 'an outside service'}, not a file stored in Slack. Download it and upload the file here instead.`;
  }
}

/** A FileReadError whose message is describeFileError's sentence. */
export function fileReadError(file: Describable, code: FileErrorCode, details?: FileErrorDetails, cause?: unknown): FileReadError {
  return new FileReadError(code, describeFileError(file, code, details), cause === undefined ? undefined : { cause });
}

