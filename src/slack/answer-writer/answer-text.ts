import type { AnyBlock } from '@slack/types';
import { neutraliseMentions, splitKeepingHead, type SlackMessage } from '../format';

/** A block as the Web API takes it (markdown for the answer, context_actions for the feedback buttons). */
export type Block = AnyBlock;

/** One message of the answer: mrkdwn `text` for notifications, the blocks people see. */
export interface AnswerMessage {
  text: string;
  blocks: Block[];
}

/** What the live message shows of the text so far, and whether that is all one message may hold. */
export interface LiveView {
  shown: string;
  full: boolean;
}

/**
 * What the live message should show for the text received so far: everything up to a point where nothing is
 * half-written, mentions neutralised, no trailing whitespace (a message never ends in blank lines; it waits until text
 * follows). Past `limit`, only the first message of the answer as the end will cut it, which keeps what is already
 * `onScreen` (a stream cannot take text back).
 */
export function liveView(text: string, limit: number, onScreen: string): LiveView {
  const shown = neutraliseMentions(safePrefix(text).trimEnd());
  if (shown.length <= limit) return { shown, full: false };
  return { shown: splitKeepingScreen(shown, limit, onScreen)[0] ?? '', full: true };
}

/**
 * Safe markdown longer than one message, split into messages where the first keeps what is already on screen when
 * the text still begins with it.
 */
export function splitKeepingScreen(safe: string, limit: number, onScreen: string): string[] {
  return splitKeepingHead(safe, limit, safe.startsWith(onScreen) ? onScreen.length : 0);
}

/** The live message while it grows by editing: the markdown block renders as the finished answer will. */
export function liveMessage(markdown: string): AnswerMessage {
  return { text: markdown, blocks: [{ type: 'markdown', text: markdown }] };
}

/** `blocks` (the feedback buttons) go under the last message. */
export function withFooter(messages: readonly SlackMessage[], footer: readonly Block[]): AnswerMessage[] {
  return messages.map((message, index) => ({
    text: message.text,
    blocks: index === messages.length - 1 ? [...message.blocks, ...footer] : [...message.blocks],
  }));
}

/**
 * The answer as it ends up in the thread. What people saw streaming stays (a preamble, then the answer) when it ends
 * in the model's final words; otherwise the answer is those final words. A note goes under it in italics.
 */
export function composeAnswer(streamed: string, answer: string, note?: string): string {
  const body = streamed.trim() && streamed.trimEnd().endsWith(answer.trim()) ? streamed.trim() : answer.trim();
  return [body || '_(The model returned an empty answer.)_', note ? `_${note}_` : ''].filter(Boolean).join('\n\n');
}

/** Text up to a point where no mention, link or entity is half-written, so neutralising it is final. */
function safePrefix(text: string): string {
  const open = text.lastIndexOf('<');
  let cut = open > text.lastIndexOf('>') ? open : text.length;
  const entity = text.slice(0, cut).search(/&[#\w]*$/);
  if (entity >= 0) cut = entity;
  const at = text.slice(0, cut).search(/@\w*$/);
  return text.slice(0, at >= 0 ? at : cut);
}
