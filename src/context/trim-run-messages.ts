/**
 * Keeps the current run's messages (tool calls and results the loop appends) within a token budget. In order,
 * until it fits: drop stale budget reports; replace the oldest tool results with a one-line stub naming the call
 * so it can be repeated; cut the newest results; drop whole oldest steps. A tool call and its results are kept or
 * dropped together, never one without the other.
 */
import type { ChatMessage, ToolCall } from '../core/chat';
import { isBudgetReport } from './budget-report';
import { fitToolResult } from './fit-tool-result';
import { formatCount } from '../core/format';
import { countMessageTokens } from './message-tokens';
import { groupRunUnits } from './run-steps';

export interface TrimOptions {
  /** Tokens the run's messages may take together (what the built request leaves). */
  maxTokens: number;
  model: string;
}

export interface TrimResult {
  messages: ChatMessage[];
  tokens: number;
  /** Old results replaced by a stub. */
  stubbedResults: number;
  /** Newest results shortened with a cut note. */
  cutResults: number;
  /** Whole units (a step with its results, or a lone message) left out. */
  droppedUnits: number;
}

export function trimRunMessages(messages: readonly ChatMessage[], budget: TrimOptions): TrimResult {
  const { maxTokens, model } = budget;
  const out: Array<ChatMessage | undefined> = [...messages];
  const tokens = out.map((m) => countMessageTokens(m!, model));
  let total = tokens.reduce((a, b) => a + b, 0);
  const result = { stubbedResults: 0, cutResults: 0, droppedUnits: 0 };
  const fits = () => total <= maxTokens;
  const replace = (index: number, message: ChatMessage | undefined) => {
    out[index] = message;
    const next = message ? countMessageTokens(message, model) : 0;
    total += next - tokens[index]!;
    tokens[index] = next;
  };
  const finish = (): TrimResult => {
    const kept = out.filter((m): m is ChatMessage => m !== undefined);
    return { messages: kept, tokens: total, ...result };
  };
  if (fits()) return finish();

  const lastReport = out.findLastIndex((m) => m !== undefined && isBudgetReport(m));
  out.forEach((m, i) => {
    if (i !== lastReport && m && isBudgetReport(m)) replace(i, undefined);
  });
  if (fits()) return finish();

  const units = groupRunUnits(messages);
  const newestStep = units.findLastIndex((u) => u.isStep);
  const callsById = new Map<string, ToolCall>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) callsById.set(c.id, c);

  // Oldest results first; the newest step's results are what the model is about to use.
  for (let u = 0; u < units.length && !fits(); u += 1) {
    if (!units[u]!.isStep || u === newestStep) continue;
    for (const index of units[u]!.indexes.slice(1)) {
      const message = out[index];
      if (message?.role !== 'tool' || fits()) continue;
      const stub = renderStub(message.content, callsById.get(message.toolCallId));
      if (stub.length >= message.content.length) continue;
      replace(index, { ...message, content: stub });
      result.stubbedResults += 1;
    }
  }
  if (fits()) return finish();

  if (newestStep >= 0) {
    const resultIndexes = units[newestStep]!.indexes.slice(1);
    const others = total - resultIndexes.reduce((sum, i) => sum + tokens[i]!, 0);
    const share = Math.floor((maxTokens - others) / Math.max(1, resultIndexes.length)) - 4;
    for (const index of resultIndexes) {
      const message = out[index];
      if (message?.role !== 'tool' || tokens[index]! <= share) continue;
      const cut = fitToolResult(message.content, Math.max(50, share), 'repeat the call with a narrower range, or use search_file', model);
      replace(index, { ...message, content: cut });
      result.cutResults += 1;
    }
  }

  // Last resort: whole units, oldest first, never the newest step nor the last message.
  for (let u = 0; u < units.length - 1 && !fits(); u += 1) {
    if (u === newestStep || units[u]!.indexes.every((i) => out[i] === undefined)) continue;
    for (const index of units[u]!.indexes) replace(index, undefined);
    result.droppedUnits += 1;
  }
  return finish();
}

function renderStub(content: string, call: ToolCall | undefined): string {
  const args = call ? (call.arguments.length > 160 ? `${call.arguments.slice(0, 160)}…` : call.arguments) : '';
  const what = call ? ` of ${call.name}(${args})` : '';
  return `[earlier result${what} removed to fit the context window (${formatCount(content.length)} characters); call it again if you still need it]`;
}
