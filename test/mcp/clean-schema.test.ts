import { describe, expect, it } from 'vitest';
import { cleanToolSchema } from '../../src/mcp/clean-schema';
import { MALFORMED_TOOLS } from '../fakes/mcp/misbehaving';
import { checkFunctionParameters } from '../fakes/openai-function-schema';

/** Cleans, and proves OpenAI would accept the result (the point of cleaning). */
function clean(input: unknown) {
  const result = cleanToolSchema(input);
  expect(checkFunctionParameters('tool', result.schema)).toBeUndefined();
  return result;
}

describe('cleanToolSchema', () => {
  it('is what OpenAI itself refuses, before cleaning (so the checks below can fail)', () => {
    expect(checkFunctionParameters('t', { type: 'object' })).toBe("Invalid schema for function 't': In context=(), object schema missing properties.");
    expect(checkFunctionParameters('t', { type: 'object', properties: { tags: { type: 'array' } } })).toBe(
      "Invalid schema for function 't': In context=('properties', 'tags'), array schema missing items.",
    );
    expect(checkFunctionParameters('t', { type: 'object', properties: { type: 'object' } })).toBe(
      "Invalid schema for function 't': In context=('properties', 'type'), \"object\" is not of type 'object', 'boolean'.",
    );
  });

  it('gives a tool without parameters an empty object, without calling it a repair', () => {
    expect(clean(undefined)).toEqual({ schema: { type: 'object', properties: {} }, changes: [] });
    expect(clean({})).toEqual({ schema: { type: 'object', properties: {} }, changes: [] });
    expect(clean({ type: 'object' })).toEqual({ schema: { type: 'object', properties: {} }, changes: [] });
  });

  it('leaves a good schema as it was, apart from $schema', () => {
    const good = {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words', minLength: 1 },
        status: { type: 'string', enum: ['open', 'done'] },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
        labels: { type: 'array', items: { type: 'string' }, maxItems: 5 },
        when: { type: 'string', format: 'date-time' },
        extra: { type: 'object', properties: {}, additionalProperties: { type: 'string' } },
      },
      required: ['query'],
      additionalProperties: false,
    };
    const { schema, changes } = clean({ $schema: 'http://json-schema.org/draft-07/schema#', ...good });
    expect(schema).toEqual(good);
    expect(changes).toEqual([]);
  });

  it('gives arrays without items open items, nested ones too', () => {
    const { schema, changes } = clean(MALFORMED_TOOLS.find((t) => t.name === 'array_without_items')!.inputSchema);
    expect(schema).toEqual({
      type: 'object',
      properties: { tags: { type: 'array', description: 'Labels', items: {} }, matrix: { type: 'array', items: { type: 'array', items: {} } } },
      required: ['tags'],
    });
    expect(changes).toEqual(['array without "items" at tags given open items', 'array without "items" at matrix[] given open items']);
  });

  it('inlines $ref from $defs and definitions, relaxes recursion and references it cannot resolve', () => {
    const { schema, changes } = clean(MALFORMED_TOOLS.find((t) => t.name === 'refs_and_defs')!.inputSchema);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        assignee: {
          description: 'Who does it',
          type: 'object',
          properties: { name: { type: 'string' }, manager: { description: 'Recursive: same shape as person.' } },
          required: ['name'],
        },
        priority: { type: 'string', enum: ['low', 'high'] },
        legacy: { type: 'integer' },
        remote: {},
      },
    });
    expect(JSON.stringify(schema)).not.toMatch(/\$ref|\$defs|definitions|\$schema/);
    expect(changes).toContain('recursive $ref "#/$defs/person" at assignee.manager relaxed');
    expect(changes).toContain('$ref "https://example.com/schemas/thing.json" at remote cannot be resolved; relaxed');
  });

  it('keeps the formats OpenAI knows and moves the others into the description', () => {
    const { schema, changes } = clean(MALFORMED_TOOLS.find((t) => t.name === 'odd_formats')!.inputSchema);
    expect(schema.properties).toEqual({
      homepage: { type: 'string', description: 'Format: uri.' },
      when: { type: 'string', format: 'date-time' },
      colour: { type: 'string', description: 'A colour Format: hex-colour.' },
      email: { type: 'string', format: 'email' },
    });
    expect(changes).toEqual(['format "uri" at homepage moved into the description', 'format "hex-colour" at colour moved into the description']);
  });

  it('turns oneOf into anyOf, unwraps a single member, drops empty unions and not, merges allOf', () => {
    const { schema } = clean(MALFORMED_TOOLS.find((t) => t.name === 'unions')!.inputSchema);
    expect(schema.properties).toEqual({
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      single: { type: 'string', description: 'only member' },
      nothing: {},
      merged: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] },
      negated: { type: 'string' },
    });
  });

  it('relaxes a top level that is not an object, and merges a top-level union of objects', () => {
    const stringRoot = clean({ type: 'string', description: 'A query' });
    expect(stringRoot.schema).toEqual({ type: 'object', properties: {}, additionalProperties: true, description: 'A query' });
    expect(stringRoot.changes).toEqual(['top level was of type "string", not an object; relaxed to an open object']);

    expect(clean('object').schema).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(clean([{ type: 'object' }]).changes).toEqual(['top level was a list, not a schema; relaxed to an open object']);
    expect(clean({ type: ['object', 'null'], properties: { a: { type: 'string' } } }).schema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });

    const union = clean(MALFORMED_TOOLS.find((t) => t.name === 'union_root')!.inputSchema);
    expect(union.schema).toEqual({ type: 'object', properties: { key: { type: 'string' }, query: { type: 'string' } } });

    const requiredVariants = clean({
      type: 'object',
      properties: { id: { type: 'string' }, key: { type: 'string' }, note: { type: 'string' } },
      required: ['note'],
      anyOf: [{ required: ['id'] }, { required: ['key'] }],
    });
    expect(requiredVariants.schema).toEqual({ type: 'object', properties: { id: { type: 'string' }, key: { type: 'string' }, note: { type: 'string' } }, required: ['note'] });
  });

  it('drops properties that are not schemas, required names that do not exist, and malformed keywords', () => {
    const { schema, changes } = clean(MALFORMED_TOOLS.find((t) => t.name === 'broken_properties')!.inputSchema);
    expect(schema).toEqual({
      type: 'object',
      properties: { filePath: { type: 'string' }, count: { type: 'integer' }, pattern: { type: 'string' } },
      required: ['filePath'],
    });
    expect(changes).toEqual([
      'the text "object" where a schema belongs at type was dropped',
      'boolean exclusiveMinimum at count rewritten',
      'property forbidden by "false" at flag dropped',
      'pattern that is not a valid regular expression at pattern dropped',
      '"required" naming missing properties trimmed',
    ]);
  });

  it('rewrites draft 4 exclusive bounds and OpenAPI nullable', () => {
    const { schema } = clean(MALFORMED_TOOLS.find((t) => t.name === 'draft4_bounds')!.inputSchema);
    expect(schema.properties).toEqual({ n: { type: ['number', 'null'], exclusiveMinimum: 0 } });
  });

  it('turns tuple items into one item schema and infers types from keywords', () => {
    expect(clean({ type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } }).schema.properties).toEqual({
      pair: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
    });
    expect(clean({ properties: { nested: { properties: { a: { type: 'string' } } }, list: { items: { type: 'string' } } } }).schema).toEqual({
      type: 'object',
      properties: { nested: { type: 'object', properties: { a: { type: 'string' } } }, list: { type: 'array', items: { type: 'string' } } },
    });
  });

  it('stops at a nesting depth no real tool needs', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { next: deep } };
    const { changes } = clean(deep);
    expect(changes).toEqual([expect.stringMatching(/^schema nested deeper than 24 levels at next\.next/)]);
  });

  it('makes every malformed schema of the misbehaving server acceptable', () => {
    for (const tool of MALFORMED_TOOLS) {
      const { schema } = cleanToolSchema(tool.inputSchema);
      expect(checkFunctionParameters(String(tool.name), schema), String(tool.name)).toBeUndefined();
    }
  });
});
