/**
 * For models without native tool calling: the ReAct text protocol (Dify's chain-of-thought runner). Wraps any
 * ChatModel so the agent loop stays the same: tools are described in the prompt, the model writes
 * Thought / Action / Action Input, and its text is parsed (leniently) back into tool calls.
 */
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ToolCall, ToolSpec } from './chat-model';

export function createReActChatModel(inner: ChatModel): ChatModel {
  let callCounter = 0;
  return {
    name: inner.name,
    async complete(request) {
      const tools = request.tools ?? [];
      const messages = toReActMessages(request.messages, tools);
      const response = await inner.complete({
        messages,
        signal: request.signal,
        stop: tools.length ? ['\nObservation:'] : undefined,
      });
      const parsed = parseReActOutput(response.text ?? '', tools.length > 0);
      if (parsed.kind === 'action') {
        return {
          ...response,
          text: parsed.thought || null,
          toolCalls: [{ id: `react_${++callCounter}`, name: parsed.name, arguments: parsed.input }],
          finishReason: 'tool_calls',
        };
      }
      request.onTextDelta?.(parsed.answer);
      return { ...response, text: parsed.answer, toolCalls: [], finishReason: 'stop' };
    },
  };
}

function toReActMessages(messages: ChatMessage[], tools: ToolSpec[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const call = message.toolCalls[0]!;
      out.push({
        role: 'assistant',
        content: `Thought: ${message.content?.trim() || 'I should use a tool.'}\nAction: ${call.name}\nAction Input: ${call.arguments}`,
      });
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
  const instructions = tools.length ? protocolFor(tools) : 'Answer the user now, directly, without using any tools.';
  return [...out, { role: 'system', content: instructions }];
}

function protocolFor(tools: ToolSpec[]): string {
  const list = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  Arguments (JSON Schema): ${JSON.stringify(tool.parameters)}`).join('\n');
  return [
    'You can use these tools:',
    list,
    '',
    'To use a tool, reply in exactly this format and then stop:',
    'Thought: what you need and why',
    'Action: the tool name',
    'Action Input: the arguments as one JSON object',
    '',
    'The result comes back as "Observation: …". Use one tool at a time.',
    'When you can answer, reply:',
    'Thought: I can answer now.',
    'Final Answer: your answer to the user',
  ].join('\n');
}

export type ReActStep =
  | { kind: 'action'; thought: string; name: string; input: string }
  | { kind: 'answer'; answer: string };

/** Lenient: accepts the plain protocol, a JSON {"action", "action_input"} blob, code fences, missing labels. */
export function parseReActOutput(text: string, toolsAllowed: boolean): ReActStep {
  const final = /Final Answer\s*:\s*([\s\S]*)$/i.exec(text);
  const thought = /Thought\s*:\s*([\s\S]*?)(?=\n\s*(Action|Final Answer)\s*:|$)/i.exec(text)?.[1]?.trim() ?? '';
  if (toolsAllowed && !final) {
    const action = /Action\s*:\s*`?([A-Za-z0-9_.-]+)`?/i.exec(text);
    if (action) {
      const inputText = /Action Input\s*:\s*([\s\S]*)$/i.exec(text)?.[1] ?? '{}';
      return { kind: 'action', thought, name: action[1]!, input: extractJson(inputText) };
    }
    const blob = extractJsonObject(text);
    if (blob && typeof blob.action === 'string' && blob.action !== 'Final Answer') {
      return { kind: 'action', thought, name: blob.action, input: JSON.stringify(blob.action_input ?? {}) };
    }
    if (blob && blob.action === 'Final Answer') return { kind: 'answer', answer: String(blob.action_input ?? '') };
  }
  if (final) return { kind: 'answer', answer: final[1]!.trim() };
  return { kind: 'answer', answer: text.replace(/^\s*Thought\s*:.*$/im, '').trim() || text.trim() };
}

function extractJson(text: string): string {
  const unfenced = text.replace(/```(?:json)?/gi, '').trim();
  const start = unfenced.indexOf('{');
  if (start < 0) return unfenced.split('\n')[0]!.trim() || '{}';
  let depth = 0;
  for (let i = start; i < unfenced.length; i++) {
    if (unfenced[i] === '{') depth++;
    else if (unfenced[i] === '}' && --depth === 0) return unfenced.slice(start, i + 1);
  }
  return unfenced.slice(start);
}

function extractJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(extractJson(text));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export type { ChatRequest, ChatResponse, ToolCall };
