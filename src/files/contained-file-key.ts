/**
 * The source key of a file inside another (an archive entry, an attachment, an embedded picture): the container's
 * key, a separator no Slack file id or local path key holds, and the path inside. Cached reads, in-flight sharing
 * and thread_files rows all work by this key as they do by a Slack file id.
 */
const SEPARATOR = '::';

export function containedFileKey(containerKey: string, path: string): string {
  return `${containerKey}${SEPARATOR}${path}`;
}

/** The container's key and the path inside it, or undefined for a key of a file of its own. */
export function splitContainedFileKey(key: string): { containerKey: string; path: string } | undefined {
  const at = key.indexOf(SEPARATOR);
  return at === -1 ? undefined : { containerKey: key.slice(0, at), path: key.slice(at + SEPARATOR.length) };
}

export function isContainedFile(file: { slackFileId?: string }): boolean {
  return file.slackFileId !== undefined && file.slackFileId.includes(SEPARATOR);
}
