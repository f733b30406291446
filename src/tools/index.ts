import { createToolRegistry, type ToolRegistry } from './registry';
import type { Tool } from './tool';
import { loadFileTool } from './load-file';
import { peekFileTool } from './peek-file';
import { extractFileTool } from './extract-file';
import { searchFileTool } from './search-file';
import { askFileTool } from './ask-file/ask-file';
import { loadSkillTool } from './load-skill';
import { createTableTools } from './table-tools';
import { tableToolDepsFromContext } from './table-tools-context';
import type { ChartRenderer } from '../charts/chart-renderer';

/** threadwise's own tools (names fixed by DESIGN.md § Contract). */
export function builtInTools(): Tool[] {
  return [loadFileTool, peekFileTool, extractFileTool, searchFileTool, askFileTool, loadSkillTool];
}

/**
 * query_table, make_chart and attach_file (DESIGN.md § Contract), registered beside the built-in tools where the
 * run has tables and a thread to post into: each call takes them from its ToolContext (`tables`, `output`); charts
 * are drawn by the process's one chart renderer.
 */
export function tableTools(charts: ChartRenderer): Tool[] {
  return createTableTools((context) => ({ ...tableToolDepsFromContext(context), charts }));
}

/** The built-in tools as a registry (channels with MCP servers add theirs: channel-tools.ts). */
export function createDefaultTools(): ToolRegistry {
  return createToolRegistry(builtInTools());
}

export { type ToolRegistry };
export type { SkillReader, ThreadTables, Tool } from './tool';
export type { ThreadOutput } from './thread-output';
