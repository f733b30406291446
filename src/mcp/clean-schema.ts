/**
 * An MCP server's inputSchema → a function-parameters schema OpenAI (and the stricter OpenAI-compatible servers)
 * accept. The model endpoint validates every tool of a request and refuses the whole request for one bad schema,
 * so a single careless server would otherwise take every answer down. The schema is rebuilt from the keywords
 * known to be accepted; what cannot be kept is relaxed (an open schema) rather than guessed, and every change is
 * named so the operator can see which server to fix.
 *
 * Rules, from what OpenAI and others refuse in the wild:
 * - the top level is `type: "object"` with `properties` (a tool without parameters gets an empty object);
 * - every array has `items`; every entry of `properties` is a schema (not `"object"`, not `false`);
 * - `$ref`/`$defs` are inlined (recursion relaxed to an open schema); `$schema`, `$id` and other annotations go;
 * - `format` only from the set OpenAI documents; others move into the description;
 * - `oneOf` becomes `anyOf`; `anyOf` with one member is that member; `allOf` is merged; `not`/`if` are dropped;
 * - `required` only names properties that exist; numbers, lengths and patterns only when well-formed.
 */

type Schema = Record<string, unknown>;

export interface CleanedSchema {
  schema: Schema;
  /** What was changed, e.g. 'array without "items" at tags' — empty when the schema was fine as it was. */
  changes: string[];
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
/** Keywords that carry meaning for validation but are not kept: dropping them is named as a change. */
const DROPPED_MEANING = new Set([
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
]);
const MAX_DEPTH = 24;
const MAX_DESCRIPTION = 2_000;

interface Walk {
  root: Schema;
  changes: Set<string>;
  /** $refs being inlined above this node, to stop recursion. */
  refs: string[];
}

export function cleanToolSchema(input: unknown): CleanedSchema {
  const changes = new Set<string>();
  if (input === undefined || input === null) return { schema: emptyParameters(), changes: [] };
  if (!isObject(input)) {
    changes.add(`top level was ${describeValue(input)}, not a schema; relaxed to an open object`);
    return { schema: openObject(), changes: [...changes] };
  }
  const walk: Walk = { root: input, changes, refs: [] };
  let schema = cleanNode(input, walk, '', 0) ?? {};
  schema = toObjectRoot(schema, input, changes);
  return { schema, changes: [...changes] };
}

function cleanNode(node: unknown, walk: Walk, path: string, depth: number): Schema | undefined {
  if (node === true) return {};
  if (node === false) return undefined;
  if (!isObject(node)) {
    walk.changes.add(`${describeValue(node)} where a schema belongs${at(path)} was dropped`);
    return undefined;
  }
  if (depth > MAX_DEPTH) {
    walk.changes.add(`schema nested deeper than ${MAX_DEPTH} levels${at(path)} relaxed`);
    return keepAnnotations(node);
  }
  if (typeof node.$ref === 'string') return inlineRef(node, node.$ref, walk, path, depth);
  if ('$ref' in node) {
    walk.changes.add(`malformed $ref${at(path)} relaxed`);
    return keepAnnotations(node);
  }

  for (const key of Object.keys(node)) if (DROPPED_MEANING.has(key)) walk.changes.add(`"${key}"${at(path)} dropped`);

  let out = cleanOwnKeywords(node, walk, path, depth);
  if (Array.isArray(node.allOf)) {
    walk.changes.add(`allOf${at(path)} merged`);
    for (const [i, member] of node.allOf.entries()) {
      const cleaned = cleanNode(member, walk, `${path}/allOf[${i}]`, depth + 1);
      if (cleaned) out = mergeSchemas(out, cleaned);
    }
  }
  const alternatives = [...asArray(node.anyOf), ...asArray(node.oneOf)];
  if (node.oneOf !== undefined) walk.changes.add(`oneOf${at(path)} turned into anyOf`);
  if (node.anyOf !== undefined || node.oneOf !== undefined) {
    const members = alternatives
      .map((member, i) => cleanNode(member, walk, `${path}/anyOf[${i}]`, depth + 1))
      .filter((member): member is Schema => member !== undefined);
    if (members.length === 0) walk.changes.add(`empty anyOf/oneOf${at(path)} dropped`);
    else if (members.length === 1) out = mergeSchemas(out, members[0]!);
    else out.anyOf = members;
  }
  return out;
}

function cleanOwnKeywords(node: Schema, walk: Walk, path: string, depth: number): Schema {
  const out: Schema = keepAnnotations(node);
  const type = cleanType(node, walk, path);
  if (type !== undefined) out.type = type;
  const types = new Set(Array.isArray(type) ? type : type === undefined ? [] : [type]);

  if (Array.isArray(node.enum)) {
    if (node.enum.length > 0) out.enum = node.enum;
    else walk.changes.add(`empty enum${at(path)} dropped`);
  } else if (node.enum !== undefined) walk.changes.add(`enum that is not a list${at(path)} dropped`);
  if ('const' in node && node.const !== undefined) out.const = node.const;
  if ('default' in node && node.default !== undefined) out.default = node.default;

  if (types.has('object')) cleanObjectKeywords(node, out, walk, path, depth);
  if (types.has('array')) cleanArrayKeywords(node, out, walk, path, depth);
  if (types.has('string') || types.size === 0) cleanStringKeywords(node, out, walk, path);
  if (types.has('number') || types.has('integer') || types.size === 0) cleanNumberKeywords(node, out, walk, path);
  return out;
}

function cleanType(node: Schema, walk: Walk, path: string): string | string[] | undefined {
  let types: string[] = [];
  if (typeof node.type === 'string') types = [node.type];
  else if (Array.isArray(node.type)) types = node.type.filter((t): t is string => typeof t === 'string');
  const valid = [...new Set(types.filter((t) => TYPES.has(t)))];
  if (node.type !== undefined && valid.length !== (Array.isArray(node.type) ? node.type.length : 1)) {
    walk.changes.add(`unknown type ${JSON.stringify(node.type)}${at(path)} ${valid.length ? 'narrowed' : 'dropped'}`);
  }
  if (valid.length === 0) {
    if (isObject(node.properties) || Array.isArray(node.required) || node.additionalProperties !== undefined) valid.push('object');
    else if (node.items !== undefined || Array.isArray(node.prefixItems)) valid.push('array');
  }
  // OpenAPI's `nullable: true`, common in servers generated from OpenAPI documents.
  if (node.nullable === true && valid.length > 0 && !valid.includes('null')) valid.push('null');
  if (valid.length === 0) return undefined;
  return valid.length === 1 ? valid[0] : valid;
}

function cleanObjectKeywords(node: Schema, out: Schema, walk: Walk, path: string, depth: number): void {
  const properties: Schema = {};
  if (isObject(node.properties)) {
    for (const [name, value] of Object.entries(node.properties)) {
      const cleaned = cleanNode(value, walk, `${path}/${name}`, depth + 1);
      if (cleaned) properties[name] = cleaned;
      else if (value === false) walk.changes.add(`property forbidden by "false"${at(`${path}/${name}`)} dropped`);
    }
  } else if (node.properties !== undefined) {
    walk.changes.add(`"properties" that is not an object${at(path)} dropped`);
  }
  out.properties = properties;

  if (Array.isArray(node.required)) {
    const required = [...new Set(node.required.filter((name): name is string => typeof name === 'string' && name in properties))];
    if (required.length !== node.required.length) walk.changes.add(`"required" naming missing properties${at(path)} trimmed`);
    if (required.length > 0) out.required = required;
  } else if (node.required !== undefined) {
    walk.changes.add(`"required" that is not a list${at(path)} dropped`);
  }

  if (typeof node.additionalProperties === 'boolean') out.additionalProperties = node.additionalProperties;
  else if (isObject(node.additionalProperties)) {
    const cleaned = cleanNode(node.additionalProperties, walk, `${path}/additionalProperties`, depth + 1);
    if (cleaned) out.additionalProperties = cleaned;
  }
  copyCount(node, out, 'minProperties');
  copyCount(node, out, 'maxProperties');
}

function cleanArrayKeywords(node: Schema, out: Schema, walk: Walk, path: string, depth: number): void {
  const tuple = Array.isArray(node.items) ? node.items : Array.isArray(node.prefixItems) && node.items === undefined ? node.prefixItems : undefined;
  if (tuple) {
    walk.changes.add(`tuple "items"${at(path)} turned into one item schema`);
    const members = tuple
      .map((member, i) => cleanNode(member, walk, `${path}[${i}]`, depth + 1))
      .filter((member): member is Schema => member !== undefined);
    out.items = members.length === 0 ? {} : members.length === 1 ? members[0]! : { anyOf: members };
  } else if (node.items === undefined || node.items === false) {
    if (node.items === undefined) walk.changes.add(`array without "items"${at(path)} given open items`);
    out.items = {};
  } else {
    out.items = cleanNode(node.items, walk, `${path}[]`, depth + 1) ?? {};
  }
  copyCount(node, out, 'minItems');
  copyCount(node, out, 'maxItems');
  if (typeof node.uniqueItems === 'boolean') out.uniqueItems = node.uniqueItems;
}

function cleanStringKeywords(node: Schema, out: Schema, walk: Walk, path: string): void {
  copyCount(node, out, 'minLength');
  copyCount(node, out, 'maxLength');
  if (typeof node.pattern === 'string') {
    try {
      new RegExp(node.pattern, 'u');
      out.pattern = node.pattern;
    } catch {
      walk.changes.add(`pattern that is not a valid regular expression${at(path)} dropped`);
    }
  }
  if (typeof node.format === 'string') {
    if (FORMATS.has(node.format)) out.format = node.format;
    else {
      walk.changes.add(`format "${node.format}"${at(path)} moved into the description`);
      out.description = appendNote(out.description, `Format: ${node.format}.`);
    }
  }
}

function cleanNumberKeywords(node: Schema, out: Schema, walk: Walk, path: string): void {
  for (const key of ['minimum', 'maximum'] as const) if (isFiniteNumber(node[key])) out[key] = node[key];
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const value = node[exclusive];
    if (isFiniteNumber(value)) out[exclusive] = value;
    else if (typeof value === 'boolean') {
      // Draft 4 wrote exclusive bounds as booleans beside minimum/maximum; later drafts (and OpenAI) want numbers.
      walk.changes.add(`boolean ${exclusive}${at(path)} rewritten`);
      if (value && isFiniteNumber(node[bound])) {
        out[exclusive] = node[bound];
        delete out[bound];
      }
    }
  }
  if (isFiniteNumber(node.multipleOf) && node.multipleOf > 0) out.multipleOf = node.multipleOf;
}

/** Inlines a local reference (#/$defs/X, #/definitions/X, #); recursion and anything else become an open schema. */
function inlineRef(node: Schema, ref: string, walk: Walk, path: string, depth: number): Schema {
  const { $ref: _ref, ...siblings } = node;
  const target = resolvePointer(walk.root, ref);
  if (target === undefined) {
    walk.changes.add(`$ref "${ref}"${at(path)} cannot be resolved; relaxed`);
    return keepAnnotations(siblings);
  }
  if (walk.refs.includes(ref)) {
    walk.changes.add(`recursive $ref "${ref}"${at(path)} relaxed`);
    const relaxed = keepAnnotations(siblings);
    relaxed.description = appendNote(relaxed.description, `Recursive: same shape as ${ref.split('/').pop()}.`);
    return relaxed;
  }
  walk.changes.add(`$ref "${ref}" inlined`);
  const merged = isObject(target) ? { ...target, ...siblings } : target === true ? siblings : target;
  walk.refs.push(ref);
  try {
    return cleanNode(merged, walk, path, depth + 1) ?? {};
  } finally {
    walk.refs.pop();
  }
}

function resolvePointer(root: Schema, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(value) || !(key in value)) return undefined;
    value = value[key];
  }
  return value;
}

/** The top level must be an object; a union of objects is merged (a property is required only if every shape needs it). */
function toObjectRoot(schema: Schema, original: Schema, changes: Set<string>): Schema {
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((member) => isObject(member) && member.type === 'object')) {
    changes.add('top-level anyOf/oneOf merged into one object');
    const members = schema.anyOf as Schema[];
    const { anyOf: _anyOf, ...rest } = schema;
    const properties: Schema = {};
    for (const member of members) Object.assign(properties, member.properties);
    Object.assign(properties, rest.properties);
    const inEvery = members
      .map((member) => asArray(member.required))
      .reduce((common, names) => common.filter((name) => names.includes(name)));
    const required = [...new Set([...asArray(rest.required), ...inEvery])];
    schema = { ...rest, type: 'object', properties, ...(required.length ? { required } : {}) };
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object')) {
    if (schema.type !== 'object') changes.add('top-level type list narrowed to "object"');
    const { anyOf: _anyOf, ...rest } = schema;
    if (_anyOf !== undefined) changes.add('top-level anyOf dropped');
    return { ...rest, type: 'object', properties: rest.properties ?? {} };
  }
  if (schema.type === undefined && Object.keys(schema).every((key) => key === 'description' || key === 'title')) {
    return { ...schema, type: 'object', properties: {} };
  }
  changes.add(`top level was ${schema.type === undefined ? 'not an object schema' : `of type ${JSON.stringify(schema.type)}`}, not an object; relaxed to an open object`);
  const relaxed = openObject();
  if (typeof original.description === 'string') relaxed.description = truncate(original.description);
  return relaxed;
}

function mergeSchemas(base: Schema, extra: Schema): Schema {
  const out: Schema = { ...extra, ...base };
  if (isObject(base.properties) || isObject(extra.properties)) {
    out.properties = { ...(extra.properties as Schema | undefined), ...(base.properties as Schema | undefined) };
  }
  const required = [...asArray(base.required), ...asArray(extra.required)];
  if (required.length) out.required = [...new Set(required)];
  if (base.type === undefined && extra.type !== undefined) out.type = extra.type;
  if (typeof base.description === 'string' && typeof extra.description === 'string' && base.description !== extra.description) {
    out.description = truncate(`${base.description} ${extra.description}`);
  }
  return out;
}

function keepAnnotations(node: Schema): Schema {
  const out: Schema = {};
  if (typeof node.title === 'string') out.title = node.title;
  if (typeof node.description === 'string') out.description = truncate(node.description);
  return out;
}

function copyCount(node: Schema, out: Schema, key: string): void {
  const value = node[key];
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) out[key] = value;
}

function emptyParameters(): Schema {
  return { type: 'object', properties: {} };
}

function openObject(): Schema {
  return { type: 'object', properties: {}, additionalProperties: true };
}

function appendNote(description: unknown, note: string): string {
  return typeof description === 'string' && description ? truncate(`${description} ${note}`) : note;
}

function truncate(text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}

function at(path: string): string {
  return path ? ` at ${path.replace(/^\//, '').replace(/\//g, '.')}` : '';
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 20 ? `${value.slice(0, 19)}…` : value)}`;
  return `a ${typeof value}`;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
