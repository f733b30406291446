/**
 * A run's messages grouped into units that must stay whole: an assistant message with tool calls together with
 * the tool messages answering it (a "step"), or any other single message. Trimming works on units, so a tool
 * call is never separated from its results.
 */
import type { ChatMessage } from '../core/chat';

export interface RunUnit {
  /** Indexes into the run's messages, in order. */
  indexes: number[];
  /** True for an assistant tool-call message and its tool results. */
  isStep: boolean;
}

export function groupRunUnits(messages: readonly ChatMessage[]): RunUnit[] {
  const units: RunUnit[] = [];
  const unitOfCall = new Map<string, RunUnit>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const unit: RunUnit = { indexes: [index], isStep: true };
      for (const call of message.toolCalls) unitOfCall.set(call.id, unit);
      units.push(unit);
    } else if (message.role === 'tool' && unitOfCall.has(message.toolCallId)) {
      // Found by id, not by position: a result is tied to its call even if something was appended between.
      unitOfCall.get(message.toolCallId)!.indexes.push(index);
    } else {
      units.push({ indexes: [index], isStep: false });
    }
  });
  return units;
}

/** Every tool call answered and every tool message answering a call before it: the shape providers accept. */
export function findOrphans(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (!open.delete(message.toolCallId)) problems.push(`tool message ${index} answers unknown call ${message.toolCallId}`);
      return;
    }
    for (const id of open) problems.push(`tool call ${id} has no result before message ${index}`);
    open = new Set(message.role === 'assistant' ? (message.toolCalls ?? []).map((c) => c.id) : []);
  });
  for (const id of open) problems.push(`tool call ${id} has no result at the end`);
  return problems;
}
