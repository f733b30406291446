import { createToolRegistry, type ToolRegistry } from './registry';
import { loadFileTool } from './load-file';
import { peekFileTool } from './peek-file';
import { extractFileTool } from './extract-file';
import { searchFileTool } from './search-file';
import { askFileTool } from './ask-file';
import { loadSkillTool } from './load-skill';

/** Every tool the model sees (names fixed by DESIGN.md § Contract). */
export function createDefaultTools(): ToolRegistry {
  return createToolRegistry([loadFileTool, peekFileTool, extractFileTool, searchFileTool, askFileTool, loadSkillTool]);
}

export { createToolRegistry, type ToolRegistry };
export type { SearchHit, SearchOptions, SkillReader, SubAgentRunner, ThreadFileAccess, Tool, ToolContext } from './tool';
