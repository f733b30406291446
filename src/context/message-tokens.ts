/**
 * Tokens of chat messages as the provider bills them: content plus the per-message framing the chat format adds.
 * Framing figures follow OpenAI's published accounting (3 per message, 3 to prime the reply); tool calls add
 * their name and JSON arguments plus a small envelope, an estimate that errs on the high side.
 */
import type { ChatMessage, ContentPart } from '../core/chat';
import { countImagePartTokens } from './image-tokens';
import { countTokens } from '../text/tokenizer';

export const MESSAGE_OVERHEAD_TOKENS = 3;
export const REPLY_PRIMING_TOKENS = 3;
const TOOL_CALL_OVERHEAD_TOKENS = 8;

export function countMessageTokens(message: ChatMessage, model: string): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  switch (message.role) {
    case 'system':
      return tokens + countTokens(message.content, model);
    case 'user':
      return tokens + countContentTokens(message.content, model);
    case 'assistant':
      tokens += message.content ? countTokens(message.content, model) : 0;
      for (const call of message.toolCalls ?? []) {
        tokens += TOOL_CALL_OVERHEAD_TOKENS + countTokens(call.name, model) + countTokens(call.arguments, model);
      }
      return tokens;
    case 'tool':
      return tokens + countTokens(message.content, model);
  }
}

/** The whole request: every message, plus the reply priming. */
export function countRequestTokens(messages: readonly ChatMessage[], model: string): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) total += countMessageTokens(message, model);
  return total;
}

function countContentTokens(content: string | ContentPart[], model: string): number {
  if (typeof content === 'string') return countTokens(content, model);
  let tokens = 0;
  // Image parts are priced by the tile formula; their base64 must never reach the tokenizer.
  for (const part of content) tokens += part.type === 'text' ? countTokens(part.text, model) : countImagePartTokens(part);
  return tokens;
}
