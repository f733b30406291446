/**
 * The name a status line uses for a file id ("reading report.pdf…"). The status is shown before the tool runs,
 * so an unknown id must not throw here: it is shown as given, and the tool itself refuses it.
 */
import type { ThreadFileAccess } from '../files/thread-file-access';
import { displayFileName } from '../core/thread-file';

export function progressName(files: Pick<ThreadFileAccess, 'get'>, id: string): string {
  try {
    return displayFileName(files.get(id).name);
  } catch {
    return displayFileName(id);
  }
}
