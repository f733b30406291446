/**
 * Strict checks on a chat completion request, answered with 400s worded like OpenAI's. The point is to catch the
 * app's message-building bugs (a tool result with no matching call, a call left unanswered, a Slack URL sent as
 * an image) in tests, since a lenient fake would let them through to production where the real API refuses them.
 *
 * The rules, in order (the first broken rule is reported):
 *  1. `model` is a non-empty string; `messages` a non-empty array.
 *  2. Every message has a role among system, developer, user, assistant, tool.
 *  3. system/developer content: a string, or an array of `text` parts.
 *  4. user content: a string, or an array of `text` and `image_url` parts. An image URL must be a `data:` URL
 *     (`data:image/png|jpeg|gif|webp;base64,…`) whose bytes really are that kind of image: the model could never
 *     fetch a Slack file URL itself, and an HTML sign-in page is not an image.
 *  5. assistant: content a string, null or text/refusal parts; content may be null/absent only with tool_calls;
 *     `tool_calls`, when present, is non-empty, each `{ id, type: 'function', function: { name, arguments } }`
 *     with string `arguments` and ids unique within the message.
 *  6. An assistant message with tool_calls is followed directly by one `tool` message per call (any order),
 *     before any other role and before the end of the list.
 *  7. A `tool` message answers a call of the nearest preceding assistant message (only tool messages between),
 *     by `tool_call_id`, at most once; its content is a string or text parts.
 *  8. `tools`, when present, is non-empty; each `{ type: 'function', function: { name } }` with a name matching
 *     ^[a-zA-Z0-9_-]{1,64}$, unique, and `parameters` (if given) a JSON schema with `type: 'object'` that
 *     OpenAI would accept (openai-function-schema.ts: arrays with items, properties that are schemas, …).
 *  9. `tool_choice` only with `tools`; a named choice names a defined tool.
 * 10. `stream_options` only with `stream: true`.
 */
import { checkFunctionParameters } from './openai-function-schema';

export interface ValidationError {
  message: string;
  param: string | null;
  code: string | null;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const IMAGE_MIME = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (message: string, param: string | null, code: string | null = null): ValidationError => ({ message, param, code });

function imageKind(bytes: Buffer): string | undefined {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && bytes.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return undefined;
}

function checkImageUrl(url: unknown, param: string): ValidationError | undefined {
  if (typeof url !== 'string' || url === '') return invalid(`Invalid type for '${param}': expected a string.`, param);
  if (/^https?:/i.test(url)) {
    return invalid(`Error while downloading ${url}.`, param, 'invalid_image_url');
  }
  const match = IMAGE_MIME.exec(url);
  if (!match) {
    return invalid("Invalid MIME type. Only image types are supported.", param, 'invalid_image_format');
  }
  const payload = match[2]!;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(payload)) {
    return invalid("Invalid 'image_url': the data URL is not valid base64.", param, 'invalid_image_format');
  }
  const kind = imageKind(Buffer.from(payload, 'base64'));
  if (!kind) {
    return invalid('You uploaded an unsupported image. Please make sure your image is valid.', param, 'invalid_image_format');
  }
  if (kind !== match[1]) {
    // OpenAI sniffs the bytes; a mismatch with the declared type is a sign the app mislabelled the file.
    return invalid(`Invalid image: declared ${match[1]} but the data is ${kind}.`, param, 'invalid_image_format');
  }
  return undefined;
}

function checkTextParts(content: unknown, param: string, allowed: Set<string>): ValidationError | undefined {
  if (typeof content === 'string') return undefined;
  if (!Array.isArray(content)) return invalid(`Invalid type for '${param}': expected one of a string or array of objects.`, param);
  if (content.length === 0) return invalid(`Invalid '${param}': empty array. Expected an array with minimum length 1.`, param);
  for (const [j, part] of content.entries()) {
    const p = `${param}[${j}]`;
    if (!isObject(part) || typeof part.type !== 'string') return invalid(`Missing required parameter: '${p}.type'.`, p);
    if (!allowed.has(part.type)) {
      return invalid(`Invalid value: '${part.type}'. Supported values are: ${[...allowed].map((a) => `'${a}'`).join(', ')}.`, `${p}.type`);
    }
    if (part.type === 'text' && typeof part.text !== 'string') return invalid(`Missing required parameter: '${p}.text'.`, `${p}.text`);
    if (part.type === 'refusal' && typeof part.refusal !== 'string') return invalid(`Missing required parameter: '${p}.refusal'.`, `${p}.refusal`);
    if (part.type === 'image_url') {
      if (!isObject(part.image_url)) return invalid(`Missing required parameter: '${p}.image_url'.`, `${p}.image_url`);
      const bad = checkImageUrl(part.image_url.url, `${p}.image_url.url`);
      if (bad) return bad;
    }
  }
  return undefined;
}

export function validateChatRequest(body: unknown): ValidationError | undefined {
  if (!isObject(body)) return invalid('We could not parse the JSON body of your request.', null);
  if (typeof body.model !== 'string' || body.model === '') return invalid('you must provide a model parameter', 'model');
  const messages = body.messages;
  if (!Array.isArray(messages)) return invalid("Missing required parameter: 'messages'.", 'messages');
  if (messages.length === 0) return invalid("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages');

  /** Calls of the latest assistant message still waiting for a tool result. */
  let open: { index: number; ids: Set<string> } | undefined;
  for (const [i, message] of messages.entries()) {
    const param = `messages.[${i}]`;
    if (!isObject(message)) return invalid(`Invalid type for '${param}': expected an object.`, param);
    const role = message.role;
    if (typeof role !== 'string' || !ROLES.has(role)) {
      return invalid(`Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`, `${param}.role`);
    }
    if (role !== 'tool' && open && open.ids.size > 0) {
      return unanswered(open);
    }
    if (role !== 'tool') open = undefined;

    if (role === 'system' || role === 'developer') {
      const bad = checkTextParts(message.content, `${param}.content`, new Set(['text']));
      if (bad) return bad;
    } else if (role === 'user') {
      const bad = checkTextParts(message.content, `${param}.content`, new Set(['text', 'image_url']));
      if (bad) return bad;
    } else if (role === 'assistant') {
      const calls = message.tool_calls;
      if (calls !== undefined && calls !== null) {
        if (!Array.isArray(calls)) return invalid(`Invalid type for '${param}.tool_calls': expected an array.`, `${param}.tool_calls`);
        if (calls.length === 0) return invalid(`Invalid '${param}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`, `${param}.tool_calls`);
        const ids = new Set<string>();
        for (const [j, call] of calls.entries()) {
          const p = `${param}.tool_calls.[${j}]`;
          if (!isObject(call) || typeof call.id !== 'string' || call.id === '') return invalid(`Missing required parameter: '${p}.id'.`, `${p}.id`);
          if (call.type !== 'function') return invalid(`Missing required parameter: '${p}.type'.`, `${p}.type`);
          if (!isObject(call.function) || typeof call.function.name !== 'string') return invalid(`Missing required parameter: '${p}.function'.`, `${p}.function`);
          if (typeof call.function.arguments !== 'string') {
            return invalid(`Invalid type for '${p}.function.arguments': expected a string, but got ${typeof call.function.arguments} instead.`, `${p}.function.arguments`);
          }
          if (ids.has(call.id)) return invalid(`Duplicate value for 'tool_call_id' of ${call.id} in message[${i}]`, `${p}.id`);
          ids.add(call.id);
        }
        open = { index: i, ids };
        if (message.content !== undefined && message.content !== null) {
          const bad = checkTextParts(message.content, `${param}.content`, new Set(['text', 'refusal']));
          if (bad) return bad;
        }
      } else {
        if (message.content === undefined || message.content === null) {
          return invalid(`Invalid value for 'content': expected a string, got null.`, `${param}.content`);
        }
        const bad = checkTextParts(message.content, `${param}.content`, new Set(['text', 'refusal']));
        if (bad) return bad;
      }
    } else {
      // role === 'tool'
      if (!open) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${param}.role`,
        );
      }
      const id = message.tool_call_id;
      if (typeof id !== 'string') return invalid(`Missing required parameter: '${param}.tool_call_id'.`, `${param}.tool_call_id`);
      if (!open.ids.has(id)) {
        return invalid(`Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`, `${param}.tool_call_id`);
      }
      open.ids.delete(id);
      const bad = checkTextParts(message.content, `${param}.content`, new Set(['text']));
      if (bad) return bad;
    }
  }
  if (open && open.ids.size > 0) return unanswered(open);

  const tools = body.tools;
  const names = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalid("Invalid type for 'tools': expected an array.", 'tools');
    if (tools.length === 0) return invalid("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'tools');
    for (const [i, tool] of tools.entries()) {
      const p = `tools[${i}]`;
      if (!isObject(tool) || tool.type !== 'function') return invalid(`Missing required parameter: '${p}.type'.`, `${p}.type`);
      if (!isObject(tool.function) || typeof tool.function.name !== 'string') return invalid(`Missing required parameter: '${p}.function.name'.`, `${p}.function.name`);
      const name = tool.function.name;
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
        return invalid(`Invalid '${p}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${p}.function.name`);
      }
      if (names.has(name)) return invalid(`Invalid 'tools': duplicate function name '${name}'.`, `${p}.function.name`);
      names.add(name);
      const parameters = tool.function.parameters;
      if (parameters !== undefined && (!isObject(parameters) || parameters.type !== 'object')) {
        const got = isObject(parameters) ? String(parameters.type ?? 'None') : typeof parameters;
        return invalid(`Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`, `${p}.function.parameters`, 'invalid_function_parameters');
      }
      const schemaProblem = parameters === undefined ? undefined : checkFunctionParameters(name, parameters);
      if (schemaProblem) return invalid(schemaProblem, `${p}.function.parameters`, 'invalid_function_parameters');
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null) {
    if (tools === undefined) return invalid("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
    if (typeof choice === 'string') {
      if (!['none', 'auto', 'required'].includes(choice)) return invalid(`Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`, 'tool_choice');
    } else if (!isObject(choice) || !isObject(choice.function) || !names.has(String(choice.function.name))) {
      return invalid("Invalid value for 'tool_choice': the named function is not among 'tools'.", 'tool_choice');
    }
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  return undefined;
}

function unanswered(open: { index: number; ids: Set<string> }): ValidationError {
  return invalid(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(', ')}`,
    `messages.[${open.index + 1}].role`,
  );
}

/** Whether any user message carries an image part (for `rejectImages`). */
export function hasImages(body: Json): boolean {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.some((m) => isObject(m) && Array.isArray(m.content) && m.content.some((p) => isObject(p) && p.type === 'image_url'));
}

/**
 * A rough token count for usage numbers and the context-window check: characters / 4 of every text part, tool
 * call and tool definition, 4 per message of overhead, 765 per image (a 1024² "high" detail tile budget).
 */
export function estimatePromptTokens(body: Json): number {
  let chars = 0;
  let extra = 0;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    if (!isObject(message)) continue;
    extra += 4;
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!isObject(part)) continue;
        if (typeof part.text === 'string') chars += part.text.length;
        if (part.type === 'image_url') extra += 765;
      }
    }
    if (Array.isArray(message.tool_calls)) chars += JSON.stringify(message.tool_calls).length;
  }
  if (Array.isArray(body.tools)) chars += JSON.stringify(body.tools).length;
  return Math.ceil(chars / 4) + extra;
}
