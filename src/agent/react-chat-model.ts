/**
 * For models without native tool calling: the ReAct text protocol (Dify's chain-of-thought runner). Wraps any
 * ChatModel so the agent loop stays the same: the tools are described in the system prompt, the model writes
 * Thought / Action / Action Input and stops before "Observation:", and its text is parsed — leniently — back into
 * a tool call. Tool results go back as "Observation: …" user turns; the answer is whatever follows "Final Answer:".
 */
import type { ChatMessage, ChatModel, ToolCall, ToolSpec } from '../core/chat';

export function createReActChatModel(inner: ChatModel): ChatModel {
  let callCounter = 0;
  return {
    name: inner.name,
    async complete(request) {
      const tools = request.tools ?? [];
      const stream = request.onTextDelta ? createAnswerStream(request.onTextDelta) : undefined;
      const response = await inner.complete({
        messages: toReActMessages(request.messages, tools),
        signal: request.signal,
        retryDeadline: request.retryDeadline,
        // Without the stop the model tends to invent the Observation itself, and then an answer built on it.
        stop: tools.length ? ['\nObservation:'] : undefined,
        onTextDelta: stream?.push,
        onRetry: (retry) => request.onRetry?.({ ...retry, textAbandoned: stream?.reset() ?? false }),
      });
      const parsed = parseReActOutput(response.text ?? '', tools);
      if (parsed.kind === 'action') {
        const call: ToolCall = { id: `react_${++callCounter}`, name: parsed.name, arguments: parsed.input };
        return { ...response, text: parsed.thought || null, toolCalls: [call], finishReason: 'tool_calls' };
      }
      stream?.finish(parsed.answer);
      return { ...response, text: parsed.answer, toolCalls: [], finishReason: response.finishReason === 'length' ? 'length' : 'stop' };
    },
  };
}

/**
 * Passes on, as it streams, only the text after "Final Answer:" — never a Thought or an Action. When the model
 * answered without the label, the parsed answer goes out whole at the end instead.
 */
function createAnswerStream(onTextDelta: (delta: string) => void) {
  let raw = '';
  let forwarded = -1; // characters of `raw` already passed on; -1 until the answer has begun
  return {
    push(delta: string) {
      raw += delta;
      if (forwarded < 0) {
        const from = reasoningEnd(raw);
        if (from < 0) return; // still inside <think>
        const visible = raw.slice(from);
        const action = ACTION_LABEL.exec(visible);
        const final = FINAL_LABEL.exec(visible);
        if (!final || (action && action.index < final.index)) return;
        // Wait for the first non-space character, so the stream starts exactly where the parsed answer will.
        const start = from + final.index + final[0].length;
        const firstChar = raw.slice(start).search(/\S/);
        if (firstChar < 0) return;
        forwarded = start + firstChar;
      }
      if (raw.length > forwarded) {
        onTextDelta(raw.slice(forwarded));
        forwarded = raw.length;
      }
    },
    /** The attempt failed and is retried: start over. Returns whether answer text had already gone out. */
    reset(): boolean {
      const abandoned = forwarded >= 0;
      raw = '';
      forwarded = -1;
      return abandoned;
    },
    finish(answer: string) {
      if (forwarded < 0 && answer) onTextDelta(answer);
    },
  };
}

function toReActMessages(messages: ChatMessage[], tools: ToolSpec[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const thought = message.content?.trim() || 'I should use a tool.';
      const actions = message.toolCalls.map((call) => `Action: ${call.name}\nAction Input: ${call.arguments || '{}'}`);
      out.push({ role: 'assistant', content: `Thought: ${thought}\n${actions.join('\n')}` });
    } else if (message.role === 'tool') {
      const previous = out.at(-1);
      const observation = `Observation: ${message.content}`;
      if (previous?.role === 'user' && typeof previous.content === 'string' && previous.content.startsWith('Observation:')) {
        previous.content += `\n\n${observation}`;
      } else {
        out.push({ role: 'user', content: observation });
      }
    } else {
      out.push(message);
    }
  }
  // Into the first system message: some OpenAI-compatible servers refuse a system message anywhere else.
  const protocol = tools.length ? protocolFor(tools) : 'Do not use any tools now. Answer the user directly with what you have, starting with "Final Answer:".';
  const first = out[0];
  if (first?.role === 'system') out[0] = { role: 'system', content: `${first.content}\n\n${protocol}` };
  else out.unshift({ role: 'system', content: protocol });
  return out;
}

function protocolFor(tools: ToolSpec[]): string {
  const list = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  Arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`).join('\n');
  return [
    '## Tools',
    'You can use these tools:',
    list,
    '',
    'To use a tool, reply in exactly this format and then stop:',
    'Thought: what you need and why',
    `Action: the tool name, one of ${tools.map((t) => t.name).join(', ')}`,
    'Action Input: the arguments as one JSON object',
    '',
    'The result comes back as "Observation: …". Use one tool at a time.',
    'When you can answer, reply:',
    'Thought: I can answer now.',
    'Final Answer: your answer to the user',
  ].join('\n');
}

export type ReActStep = { kind: 'action'; thought: string; name: string; input: string } | { kind: 'answer'; answer: string };

// Labels may come in markdown emphasis ("**Action:**") or as list items.
const ACTION_LABEL = /^[ \t*_#>-]*Action[*_]*\s*:[*_]*[ \t]*/im;
const FINAL_LABEL = /^[ \t*_#>-]*Final\s+Answer[*_]*\s*:[*_]*\s*/im;
const INPUT_LABEL = /^[ \t*_#>-]*Action\s+Input[*_]*\s*:[*_]*\s*/im;

/**
 * Lenient: labels in any case, with markdown emphasis or list marks around them; a <think> block before; the tool
 * name in backticks or quotes and in the wrong case; the input fenced, with prose around it, or as a bare value for
 * a tool with one required argument; LangChain's {"action": …, "action_input": …} JSON blob. Whichever of Action or
 * Final Answer comes first wins: anything written after an Action is the model imagining the Observation.
 */
export function parseReActOutput(text: string, tools: ToolSpec[] | boolean): ReActStep {
  const specs = Array.isArray(tools) ? tools : [];
  const toolsAllowed = Array.isArray(tools) ? tools.length > 0 : tools;
  const visible = withoutReasoning(text);
  const action = ACTION_LABEL.exec(visible);
  const final = FINAL_LABEL.exec(visible);
  const thought = /Thought[*_]*\s*:[*_]*\s*([\s\S]*?)(?=^[ \t*_#>-]*(?:Action|Final\s+Answer)[*_]*\s*:|$(?![\s\S]))/im.exec(visible)?.[1]?.trim() ?? '';

  if (toolsAllowed && action && (!final || action.index < final.index)) {
    const afterLabel = visible.slice(action.index + action[0].length);
    const name = resolveToolName(afterLabel.split('\n')[0]!, specs);
    const input = INPUT_LABEL.exec(afterLabel);
    const inputText = input ? afterLabel.slice(input.index + input[0].length).split(/\n\s*Observation\s*:/i)[0]! : '';
    return { kind: 'action', thought, name, input: normaliseInput(inputText, specs.find((t) => t.name === name)) };
  }
  if (final) return { kind: 'answer', answer: visible.slice(final.index + final[0].length).trim() };
  if (toolsAllowed) {
    const blob = parseJsonObject(visible);
    if (blob && typeof blob.action === 'string') {
      if (/^final[ _]?answer$/i.test(blob.action)) return { kind: 'answer', answer: stringOf(blob.action_input) };
      const name = resolveToolName(blob.action, specs);
      const args = blob.action_input ?? blob.action_inputs ?? {};
      return { kind: 'action', thought, name, input: typeof args === 'string' ? normaliseInput(args, specs.find((t) => t.name === name)) : JSON.stringify(args) };
    }
  }
  const withoutLabel = visible.replace(/^[\s*_]*Thought[*_]*\s*:[*_]*\s*/i, '').trim();
  return { kind: 'answer', answer: withoutLabel || visible.trim() };
}

/** Reasoning models served through OpenAI-compatible endpoints often put their thinking in the content. */
function withoutReasoning(text: string): string {
  return text.replace(/<think>[\s\S]*?(<\/think>|$)/gi, '').replace(/^\s+/, '');
}

/** Where the text after the last closed <think> block begins; -1 while one is still open. */
function reasoningEnd(text: string): number {
  const open = text.lastIndexOf('<think>');
  const close = text.lastIndexOf('</think>');
  if (open > close) return -1;
  return close < 0 ? 0 : close + '</think>'.length;
}

function resolveToolName(line: string, tools: ToolSpec[]): string {
  const name = line.trim().replace(/^[`"'*[(\s]+|[`"'*\]).,:;\s]+$/g, '').split(/[\s(`]/)[0] ?? '';
  const exact = tools.find((tool) => tool.name === name);
  if (exact) return exact.name;
  const loose = name.toLowerCase().replace(/[-\s]/g, '_');
  return tools.find((tool) => tool.name.toLowerCase() === loose)?.name ?? name;
}

/** The Action Input as JSON text the loop's argument parser accepts. */
function normaliseInput(inputText: string, tool: ToolSpec | undefined): string {
  const unfenced = inputText.replace(/```[a-z]*\n?/gi, '').trim();
  const object = findJsonObject(unfenced);
  if (object !== undefined) return object;
  // Broken JSON goes on as it is: the loop's argument parser repairs what it can and explains the rest.
  if (unfenced.startsWith('{')) return unfenced;
  if (unfenced === '' || /^(none|null|\{\s*\})$/i.test(unfenced)) return '{}';
  // A bare value for a tool that takes one argument: `Action Input: F1` means {"id": "F1"}.
  const only = soleArgument(tool);
  const value = unfenced.split('\n')[0]!.trim().replace(/^(["'])(.*)\1$/, '$2');
  return only ? JSON.stringify({ [only]: value }) : unfenced;
}

function soleArgument(tool: ToolSpec | undefined): string | undefined {
  const properties = Object.keys((tool?.parameters.properties as Record<string, unknown> | undefined) ?? {});
  const required = (tool?.parameters.required as string[] | undefined) ?? [];
  if (required.length === 1) return required[0];
  return properties.length === 1 ? properties[0] : undefined;
}

/** The first balanced {...} in the text, aware of strings (a "}" inside a string does not close it). */
function findJsonObject(text: string): string | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const char = text[i];
      if (inString) {
        if (char === '\\') i++;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === '{') depth++;
      else if (char === '}' && --depth === 0) {
        const candidate = text.slice(start, i + 1);
        try {
          JSON.parse(candidate);
          return candidate;
        } catch {
          break; // not JSON from this brace: try the next one
        }
      }
    }
  }
  return undefined;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const json = findJsonObject(text.replace(/```[a-z]*\n?/gi, ''));
  if (json === undefined) return undefined;
  const value = JSON.parse(json) as unknown;
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
}

