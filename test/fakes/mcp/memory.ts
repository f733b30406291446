/**
 * A knowledge-graph memory MCP server shaped like the official one (`@modelcontextprotocol/server-memory`): its 9
 * tool names, parameters of the same shape and descriptions of a similar length (in our own words). It declares no
 * annotations, as that server does. Used by the bench, beside files.ts, as the second of "two servers enabled".
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export function buildMemoryServer(): McpServer {
  const server = new McpServer({ name: 'memory', version: '1.0.0' });
  const entities = new Map<string, { name: string; entityType: string; observations: string[] }>();
  const relations: Array<{ from: string; to: string; relationType: string }> = [];
  const done = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });
  const entity = z.object({
    name: z.string().describe('The name of the entity'),
    entityType: z.string().describe('The type of the entity'),
    observations: z.array(z.string()).describe('Facts about the entity, one string each'),
  });
  const relation = z.object({
    from: z.string().describe('The name of the entity the relation starts at'),
    to: z.string().describe('The name of the entity the relation ends at'),
    relationType: z.string().describe('The type of the relation, in active voice'),
  });

  server.registerTool(
    'create_entities',
    { description: 'Creates several new entities in the knowledge graph; entities whose names already exist are left as they are.', inputSchema: { entities: z.array(entity) } },
    async ({ entities: added }) => {
      for (const e of added) if (!entities.has(e.name)) entities.set(e.name, { ...e });
      return done(added);
    },
  );
  server.registerTool(
    'create_relations',
    { description: 'Creates several new relations between entities of the knowledge graph. Relations should be phrased in active voice.', inputSchema: { relations: z.array(relation) } },
    async ({ relations: added }) => (relations.push(...added), done(added)),
  );
  server.registerTool(
    'add_observations',
    {
      description: 'Adds new observations to existing entities of the knowledge graph; fails for an entity that does not exist.',
      inputSchema: { observations: z.array(z.object({ entityName: z.string().describe('The entity to add to'), contents: z.array(z.string()).describe('The observations to add') })) },
    },
    async ({ observations }) => {
      for (const o of observations) entities.get(o.entityName)?.observations.push(...o.contents);
      return done(observations);
    },
  );
  server.registerTool(
    'delete_entities',
    { description: 'Deletes several entities from the knowledge graph, together with every relation that involves them.', inputSchema: { entityNames: z.array(z.string()).describe('Names of the entities to delete') } },
    async ({ entityNames }) => (entityNames.forEach((name) => entities.delete(name)), done('Entities deleted')),
  );
  server.registerTool(
    'delete_observations',
    {
      description: 'Deletes particular observations from entities of the knowledge graph.',
      inputSchema: { deletions: z.array(z.object({ entityName: z.string().describe('The entity that holds them'), observations: z.array(z.string()).describe('The observations to delete') })) },
    },
    async () => done('Observations deleted'),
  );
  server.registerTool(
    'delete_relations',
    { description: 'Deletes several relations from the knowledge graph.', inputSchema: { relations: z.array(relation).describe('The relations to delete') } },
    async () => done('Relations deleted'),
  );
  server.registerTool('read_graph', { description: 'Reads the whole knowledge graph: every entity and relation.', inputSchema: {} }, async () =>
    done({ entities: [...entities.values()], relations }),
  );
  server.registerTool(
    'search_nodes',
    { description: 'Searches the nodes of the knowledge graph for a query, matched against entity names, types and observations.', inputSchema: { query: z.string().describe('What to look for') } },
    async ({ query }) => done([...entities.values()].filter((e) => JSON.stringify(e).toLowerCase().includes(query.toLowerCase()))),
  );
  server.registerTool(
    'open_nodes',
    { description: 'Opens particular nodes of the knowledge graph by their names.', inputSchema: { names: z.array(z.string()).describe('The names of the entities to open') } },
    async ({ names }) => done(names.flatMap((name) => entities.get(name) ?? [])),
  );
  return server;
}
