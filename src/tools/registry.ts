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
