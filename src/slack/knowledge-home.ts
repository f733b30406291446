/**
 * App Home's memories: the person's own and those of the channels they can read in Slack (decided as a search
 * decides it), rendered by memory-blocks.ts. The home tab appends renderMemoriesHomeSection(await homeMemories(…)).
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
