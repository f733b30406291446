/**
 * The knowledge tools for one run — search_messages, read_channel, remember, forget — bound to the run's team,
 * channel and asker (DESIGN.md § Beyond the thread).
 */
import type { KnowledgeToolDeps } from './knowledge-context';
import { createReadChannelTool } from './read-channel';
import { createForgetTool, createRememberTool } from './remember';
import { createSearchMessagesTool } from './search-messages';
import type { Tool } from './tool';

export function createKnowledgeTools(deps: KnowledgeToolDeps): Tool[] {
  return [createSearchMessagesTool(deps), createReadChannelTool(deps), createRememberTool(deps), createForgetTool(deps)];
}

export type { KnowledgeToolDeps } from './knowledge-context';
