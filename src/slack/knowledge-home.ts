/**
 * App Home's memories: the person's own and those of the channels they can read in Slack (decided as a search
 * decides it), rendered by memory-blocks.ts. The home tab appends renderMemoriesHomeSection(await homeMemories(…));
 * after a Forget click there, replaceMemoriesSection swaps the section in the published view for a fresh one.
 */
import { filterReadable } from '../knowledge/access';
import type { KnowledgeDirectory } from '../knowledge/directory';
import type { Database } from '../store/database';
import { channelMemoriesOf, channelsWithMemories, personalMemoriesOf } from '../store/memory-store';
import type { HomeMemories } from './memory-blocks';

export async function homeMemories(db: Database, directory: KnowledgeDirectory, person: { teamId: string; userId: string; isAdmin: boolean }): Promise<HomeMemories> {
  const [personal, channelIds] = await Promise.all([personalMemoriesOf(db, person.teamId, person.userId), channelsWithMemories(db, person.teamId)]);
  const readable = await filterReadable(directory, channelIds.map((id) => ({ id, teamId: person.teamId })), person);
  const channels = await channelMemoriesOf(db, person.teamId, readable.map((c) => c.id));
  return { personal, channels, userId: person.userId, isAdmin: person.isAdmin };
}

type Block = { type?: string; text?: { text?: string } };

/**
 * The home view's blocks with its "Memories" section (a divider, its header, and what follows up to the next divider)
 * replaced by `section`; appended when the view has none.
 */
export function replaceMemoriesSection(blocks: readonly unknown[], section: readonly unknown[]): unknown[] {
  const list = blocks as readonly Block[];
  const header = list.findIndex((block) => block?.type === 'header' && block.text?.text === 'Memories');
  if (header < 0) return [...blocks, ...section];
  const start = header > 0 && list[header - 1]?.type === 'divider' ? header - 1 : header;
  const next = list.findIndex((block, i) => i > header && block?.type === 'divider');
  const end = next < 0 ? list.length : next;
  return [...blocks.slice(0, start), ...section, ...blocks.slice(end)];
}
