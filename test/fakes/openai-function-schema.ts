/**
 * What OpenAI refuses in a function's `parameters` (Chat Completions, non-strict), worded like its 400s
 * ("Invalid schema for function 'x': In context=('properties', 'tags'), array schema missing items."). Collected
 * from refusals seen in the wild; used by the fake OpenAI server and by tests of MCP schema cleaning. Checks:
 *  - the top level is `type: "object"` and has `properties`;
 *  - every schema is an object or a boolean (`"properties": {"type": "object"}` is the classic slip);
 *  - `type` names JSON Schema types; arrays have `items` (a schema, not a list);
 *  - `required`, `enum`, `anyOf`, `allOf`, `oneOf` are lists (`anyOf` etc. non-empty), `properties` an object;
 *  - `$ref` resolves inside the schema;
 *  - counts are non-negative integers, `pattern` and `format` are strings.
 */

type Json = Record<string, unknown>;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The refusal message, or undefined when OpenAI would accept these parameters. */
export function checkFunctionParameters(name: string, parameters: unknown): string | undefined {
  const refuse = (context: string[], problem: string) =>
    `Invalid schema for function '${name}': In context=(${context.map((c) => `'${c}'`).join(', ')}${context.length === 1 ? ',' : ''}), ${problem}`;
  if (!isObject(parameters)) return `Invalid schema for function '${name}': ${JSON.stringify(parameters)} is not of type 'object'.`;
  if (parameters.type !== 'object') {
    return `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(parameters.type ?? 'None')}"'.`;
  }
  if (!isObject(parameters.properties)) return refuse([], 'object schema missing properties.');
  return checkSchema(parameters, [], parameters, refuse);
}

function checkSchema(schema: unknown, context: string[], root: Json, refuse: (c: string[], p: string) => string): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isObject(schema)) return refuse(context, `${JSON.stringify(schema)} is not of type 'object', 'boolean'.`);
  if (schema.$ref !== undefined) {
    if (typeof schema.$ref !== 'string' || resolve(root, schema.$ref) === undefined) return refuse(context, `reference ${JSON.stringify(schema.$ref)} can't be resolved.`);
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const type of types) if (typeof type !== 'string' || !TYPES.has(type)) return refuse(context, `${JSON.stringify(type)} is not valid under any of the given schemas.`);
  if (types.includes('array')) {
    if (schema.items === undefined) return refuse(context, 'array schema missing items.');
    if (!isObject(schema.items) && typeof schema.items !== 'boolean') return refuse([...context, 'items'], `${JSON.stringify(schema.items)} is not of type 'object', 'boolean'.`);
  }
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties)) return refuse(context, `'properties' is not of type 'object'.`);
    for (const [key, value] of Object.entries(schema.properties)) {
      const problem = checkSchema(value, [...context, 'properties', key], root, refuse);
      if (problem) return problem;
    }
  }
  if (schema.required !== undefined && (!Array.isArray(schema.required) || schema.required.some((r) => typeof r !== 'string'))) {
    return refuse(context, `${JSON.stringify(schema.required)} is not of type 'array'.`);
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) return refuse(context, `${JSON.stringify(schema.enum)} is not of type 'array'.`);
  for (const key of ['anyOf', 'allOf', 'oneOf']) {
    const members = schema[key];
    if (members === undefined) continue;
    if (!Array.isArray(members) || members.length === 0) return refuse(context, `'${key}' must be a non-empty array.`);
    for (const [i, member] of members.entries()) {
      const problem = checkSchema(member, [...context, key, String(i)], root, refuse);
      if (problem) return problem;
    }
  }
  for (const key of ['items', 'additionalProperties', 'not']) {
    if (isObject(schema[key])) {
      const problem = checkSchema(schema[key], [...context, key], root, refuse);
      if (problem) return problem;
    }
  }
  for (const key of COUNTS) {
    const value = schema[key];
    if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
      return refuse(context, `${JSON.stringify(value)} is not a non-negative integer ('${key}').`);
    }
  }
  for (const key of ['pattern', 'format', 'description', 'title']) {
    if (schema[key] !== undefined && typeof schema[key] !== 'string') return refuse(context, `${JSON.stringify(schema[key])} is not of type 'string' ('${key}').`);
  }
  return undefined;
}

function resolve(root: Json, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(value)) return undefined;
    value = value[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}
