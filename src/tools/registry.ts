import { z } from 'zod';
import type { ToolSpec } from '../core/chat';
import type { Tool } from './tool';

export interface ToolRegistry {
  specs(): ToolSpec[];
  get(name: string): Tool | undefined;
  names(): string[];
}

/** Tools by name, with their zod parameters turned into the JSON Schema the model sees. */
export function createToolRegistry(tools: Tool[]): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`Two tools are named "${tool.name}"; tool names must be unique.`);
    byName.set(tool.name, tool);
  }
  const specs = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: toParametersSchema(tool),
  }));
  return {
    specs: () => specs,
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
  };
}

function toParametersSchema(tool: Tool): Record<string, unknown> {
  if (tool.jsonSchema) return tool.jsonSchema;
  const schema = z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  if (schema.type !== 'object') {
    throw new Error(`Tool "${tool.name}" must take an object of named arguments (its zod schema is "${String(schema.type)}").`);
  }
  return schema;
}

/**
 * A registry with a run's own tools laid over another's, which keeps its behaviour (tools found through search_tools
 * join it as the run goes). An own tool replaces one of the same name; `first` puts the own tools at the head of the
 * request; at most `limit` tools are offered to the model (the rest of the other registry's stay callable by name).
 */
export function withOwnTools(registry: ToolRegistry, tools: readonly Tool[], options: { first?: boolean; limit?: number } = {}): ToolRegistry {
  if (tools.length === 0) return registry;
  const own = createToolRegistry([...tools]);
  const taken = new Set(own.names());
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const ordered = <T>(mine: T[], theirs: T[]) => (options.first ? [...mine, ...theirs] : [...theirs, ...mine]).slice(0, limit);
  return {
    specs: () => ordered(own.specs(), registry.specs().filter((spec) => !taken.has(spec.name))),
    get: (name) => own.get(name) ?? registry.get(name),
    names: () => ordered(own.names(), registry.names().filter((name) => !taken.has(name))),
  };
}
