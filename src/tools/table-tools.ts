/**
 * query_table, make_chart and attach_file as one set: they share a thread's results (query_table makes result
 * ids, the other two take them). The lead registers `createTableTools(deps)` beside the built-in tools; `deps` may
 * be a function of the run's ToolContext, so one registration serves every thread.
 */
import { createAttachFileTool } from './attach-file';
import { createMakeChartTool } from './make-chart';
import { createQueryTableTool } from './query-table';
import type { Tool, ToolContext } from './tool';
import type { TableToolDeps } from './table-tools-context';

export type TableToolDepsSource = TableToolDeps | ((context: ToolContext) => TableToolDeps);

export function createTableTools(deps: TableToolDepsSource): Tool[] {
  const resolve = typeof deps === 'function' ? deps : () => deps;
  return [createQueryTableTool(resolve), createMakeChartTool(resolve), createAttachFileTool(resolve)];
}
