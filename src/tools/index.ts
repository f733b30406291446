import { createToolRegistry, type ToolRegistry } from './registry';
import type { Tool } from './tool';
import { loadFileTool } from './load-file';
import { peekFileTool } from './peek-file';
import { extractFileTool } from './extract-file';
import { searchFileTool } from './search-file';
import { askFileTool } from './ask-file/ask-file';
import { loadSkillTool } from './load-skill';

/** threadwise's own tools (names fixed by DESIGN.md § Contract). */
export function builtInTools(): Tool[] {
  return [loadFileTool, peekFileTool, extractFileTool, searchFileTool, askFileTool, loadSkillTool];
}

/** The built-in tools as a registry (channels with MCP servers add theirs: channel-tools.ts). */
export function createDefaultTools(): ToolRegistry {
  return createToolRegistry(builtInTools());
}

export { createToolRegistry, type ToolRegistry };
export type { SkillReader, SubAgentRunner, Tool, ToolContext } from './tool';
export { createKnowledgeTools, type KnowledgeRequest, type KnowledgeToolDeps } from './knowledge-tools';
