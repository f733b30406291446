/**
 * The current turn: the reminder, then the person's message, then any images they attached. When even this does
 * not fit (a huge paste), the message text is cut with a note rather than the request failing: the newest words
 * matter most, but an answer to part of a message beats a context-length error.
 */
import type { ChatMessage, ContentPart } from '../core/chat';
import type { ConversationTurn } from '../core/conversation';
import type { CurrentImage } from './types';
import { renderSpokenLine } from './history';
import { MESSAGE_OVERHEAD_TOKENS } from './message-tokens';
import { countImagePartTokens } from './image-tokens';
import { takeTokens } from './token-prefix';
import { formatCount } from '../core/format';
import { countTokens } from '../text/tokenizer';

export interface CurrentTurnMessage {
  message: ChatMessage;
  /** The whole message, framing included. */
  tokens: number;
  textTokens: number;
  imageTokens: number;
  /** Characters of the person's message left out to fit (0 almost always). */
  cutChars: number;
}

export function renderCurrentTurn(
  turn: ConversationTurn,
  reminder: string,
  images: readonly CurrentImage[],
  model: string,
  maxTokens: number,
): CurrentTurnMessage {
  const spoken = renderSpokenLine(turn);
  let built = assemble(reminder, spoken, images, model);
  if (built.tokens <= maxTokens) return { ...built, cutChars: 0 };
  const over = built.tokens - maxTokens;
  const keep = Math.max(0, countTokens(spoken, model) - over - 40);
  const head = takeTokens(spoken, keep, model);
  const cutChars = spoken.length - head.length;
  built = assemble(reminder, `${head}\n[cut: ${formatCount(cutChars)} more characters of this message did not fit]`, images, model);
  return { ...built, cutChars };
}

function assemble(reminder: string, spoken: string, images: readonly CurrentImage[], model: string) {
  const text = `${reminder}\n\n${spoken}`;
  const textTokens = countTokens(text, model);
  // Counted from the caller's pixel sizes where given; the parts themselves only carry the data URL.
  const imageTokens = images.reduce((sum, image) => sum + countImagePartTokens({ ...image, url: image.dataUrl }), 0);
  const parts: ContentPart[] = [{ type: 'text', text }];
  for (const image of images) parts.push({ type: 'image', url: image.dataUrl, detail: image.detail });
  const message: ChatMessage = { role: 'user', content: images.length === 0 ? text : parts };
  return { message, tokens: MESSAGE_OVERHEAD_TOKENS + textTokens + imageTokens, textTokens, imageTokens };
}
