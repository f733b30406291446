/**
 * Slack's file object, as messages, events and files.info carry it, and what it tells us before any download:
 * whether the file can be read at all. Structural, so the conversation module's own copy of the type fits.
 */
import type { FileErrorCode } from './thread-file';

export interface SlackFileObject {
  id: string;
  /** 'hosted' | 'external' | 'snippet' | 'post' | 'tombstone' | 'hidden_by_limit' … */
  mode?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  filetype?: string;
  size?: number;
  is_external?: boolean;
  external_type?: string;
  url_private?: string;
  url_private_download?: string;
  /** 'visible' | 'check_file_info' (Slack Connect: the message's copy is partial; ask files.info). */
  file_access?: string;
  original_w?: number;
  original_h?: number;
  // Thumbnail URLs and their pixel sizes. Listed, not an index signature, so every shape of file object fits.
  thumb_360?: string;
  thumb_360_w?: number;
  thumb_360_h?: number;
  thumb_480?: string;
  thumb_480_w?: number;
  thumb_480_h?: number;
  thumb_720?: string;
  thumb_720_w?: number;
  thumb_720_h?: number;
  thumb_800?: string;
  thumb_800_w?: number;
  thumb_800_h?: number;
  thumb_960?: string;
  thumb_960_w?: number;
  thumb_960_h?: number;
  thumb_1024?: string;
  thumb_1024_w?: number;
  thumb_1024_h?: number;
}

/** External services by Slack's `external_type`, for a sentence people recognise. */
const EXTERNAL_SERVICES: Record<string, string> = {
  gdrive: 'Google Drive',
  dropbox: 'Dropbox',
  box: 'Box',
  onedrive: 'OneDrive',
  sharepoint: 'SharePoint',
};

export function externalServiceName(file: Pick<SlackFileObject, 'external_type'>): string {
  return (file.external_type && EXTERNAL_SERVICES[file.external_type]) || 'an outside service';
}

/**
 * Why a file cannot be read, known from its object alone; undefined when it may be readable.
 * A tombstone is what Slack leaves in a message after the file is deleted; `hidden_by_limit` is a file the
 * workspace's plan no longer shows, which for us is the same as having no access.
 */
export function unreadableReason(file: SlackFileObject): FileErrorCode | undefined {
  if (file.mode === 'tombstone') return 'deleted';
  if (file.mode === 'hidden_by_limit') return 'no_access';
  if (file.mode === 'external' || file.is_external) return 'external';
  return undefined;
}

/** What to call a file in a sentence, even when Slack left us no name (tombstones carry only id and mode). */
export function slackFileName(file: SlackFileObject): string {
  const name = file.name?.trim() || file.title?.trim();
  if (name) return name;
  return file.mode === 'tombstone' ? `a deleted file (${file.id})` : `file ${file.id}`;
}

/** Pixel size Slack reports for one of its sizes ("thumb_1024" → thumb_1024_w/_h; "original" → original_w/_h). */
export function slackImageSize(file: SlackFileObject, key: string): { width?: number; height?: number } {
  const fields = file as unknown as Record<string, unknown>;
  const [width, height] = key === 'original' ? [file.original_w, file.original_h] : [fields[`${key}_w`], fields[`${key}_h`]];
  return {
    width: typeof width === 'number' ? width : numeric(width),
    height: typeof height === 'number' ? height : numeric(height),
  };
}

// Slack has sent some of these as strings in older payloads.
function numeric(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
