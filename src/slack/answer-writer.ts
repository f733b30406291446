import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import { formatAnswerForSlack, neutraliseMentions } from './format';
import { feedbackBlock } from './feedback-block';

export interface AnswerTarget {
  channel: string;
  threadTs: string;
  /** Streaming into a channel needs the recipient's user and team ids (chat.startStream; not needed in DMs). */
  recipientUserId?: string;
  recipientTeamId?: string;
}

export interface AnswerWriter {
  /** Streamed answer text as the model writes it. */
  append(delta: string): void;
  /** The text so far was a preamble before tool calls; later text continues after a paragraph break. */
  breakParagraph(): void;
  /** The text since the last break is void (its model call failed and is retried); the retry's text replaces it. */
  discardSinceBreak(): void;
  /** Posts (or completes) the answer with feedback buttons; returns the ts of every message it fills. */
  finish(answer: string, options: { runId: number; note?: string }): Promise<string[]>;
  /** Replaces whatever was streamed with a failure sentence. */
  fail(sentence: string): Promise<string[]>;
}

export interface AnswerWriterOptions {
  stream: boolean;
  logger: Logger;
  /** How often buffered text goes out while streaming. */
  flushIntervalMs?: number;
  /** The fallback edits the message at most once per this many ms (Slack allows about one update a second). */
  updateIntervalMs?: number;
  /** Characters one streamed message may hold before the rest continues in new messages (Slack: 12,000). */
  streamLimit?: number;
  /**
   * Each message the answer starts, as soon as it exists and before more of the answer goes out: if the process
   * dies mid-answer, the next attempt knows which half-written messages are its own.
   */
  onMessage?: (ts: string) => Promise<void>;
}

/** Well under Slack's 12,000-character markdown limit, leaving room for a note under the answer. */
const STREAM_LIMIT = 11_000;

/**
 * Writes one answer into the thread. With `stream`, the text appears as the model writes it: chat.startStream,
 * chat.appendStream, then chat.stopStream with the rest of the answer and the feedback buttons, so the pieces
 * streamed add up to the answer. Where Slack refuses streaming, one message is posted and edited (chat.update) at
 * most about once a second, and given its final form at the end. An answer longer than one message continues in new
 * messages, cut at a paragraph or line outside code. Mentions the model writes never ping anyone.
 */
export function createAnswerWriter(client: WebClient, target: AnswerTarget, options: AnswerWriterOptions): AnswerWriter {
  const flushInterval = options.flushIntervalMs ?? 700;
  const updateInterval = options.updateIntervalMs ?? 1_000;
  const limit = options.streamLimit ?? STREAM_LIMIT;
  let streamed = ''; // raw text received
  let breakAt = 0; // where the text of the current model call began in `streamed`
  let sentRaw = ''; // the raw prefix of `streamed` whose neutralised form is on screen
  let sent = ''; // that neutralised form
  let mode: 'idle' | 'stream' | 'update' | 'off' = options.stream ? 'idle' : 'off';
  let streamOpen = false; // a chat.startStream message not yet stopped
  let full = false; // the streamed message is as long as it may get
  let diverged = false; // what is on screen is no longer a prefix of the answer: the end replaces it
  let messageTs: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let lastUpdate = 0;

  const noteStarted = async (ts: string) => {
    await options.onMessage?.(ts).catch((error: unknown) => options.logger.warn('could not record a message the answer started in', { ts, error }));
  };

  const schedule = (delay = flushInterval) => {
    if (mode === 'off' || full || diverged || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      chain = chain.then(flush).catch((error) => {
        options.logger.warn('streaming the answer failed; it will be posted whole at the end', { error });
        mode = 'off';
      });
    }, delay);
  };

  const flush = async () => {
    if (mode === 'off' || full || diverged) return;
    // Trailing whitespace waits until text follows it: a message never ends in blank lines.
    let raw = safePrefix(streamed).trimEnd();
    let shown = neutraliseMentions(raw);
    if (shown.length > limit) {
      raw = cutForMessage(raw, limit).trimEnd();
      shown = neutraliseMentions(raw);
      full = true;
    }
    if (shown.length <= sent.length) return;
    if (!shown.startsWith(sent)) {
      diverged = true;
      return;
    }
    const delta = shown.slice(sent.length);
    if (mode === 'idle') {
      try {
        const started = await client.chat.startStream({
          channel: target.channel,
          thread_ts: target.threadTs,
          markdown_text: delta,
          ...(target.recipientUserId ? { recipient_user_id: target.recipientUserId } : {}),
          ...(target.recipientTeamId ? { recipient_team_id: target.recipientTeamId } : {}),
        });
        messageTs = started.ts;
        mode = 'stream';
        streamOpen = true;
        await noteStarted(messageTs!);
      } catch (error) {
        options.logger.debug('chat.startStream refused; streaming by editing a message', { error });
        const posted = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, ...asMessage(shown) });
        messageTs = posted.ts;
        mode = 'update';
        lastUpdate = Date.now();
        await noteStarted(messageTs!);
      }
    } else if (mode === 'stream') {
      await client.chat.appendStream({ channel: target.channel, ts: messageTs!, markdown_text: delta });
    } else {
      const wait = lastUpdate + updateInterval - Date.now();
      if (wait > 0) {
        if (full) full = false; // not sent yet: measure again next time
        return schedule(wait);
      }
      await client.chat.update({ channel: target.channel, ts: messageTs!, ...asMessage(shown) });
      lastUpdate = Date.now();
    }
    sent = shown;
    sentRaw = raw;
  };

  const settle = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    await chain.catch(() => {});
  };

  const stopStream = async (extra?: { markdown_text?: string; blocks?: unknown[] }) => {
    if (!streamOpen) return;
    streamOpen = false;
    await client.chat.stopStream({
      channel: target.channel,
      ts: messageTs!,
      ...(extra?.markdown_text ? { markdown_text: extra.markdown_text } : {}),
      ...(extra?.blocks ? { blocks: extra.blocks as never } : {}),
    });
  };

  /** Posts `text` formatted (the first part replacing the streamed message, if any); `blocks` go under the last part. */
  const replace = async (text: string, blocks: unknown[] | undefined): Promise<string[]> => {
    await stopStream().catch((error) => options.logger.debug('chat.stopStream failed before replacing the answer', { error }));
    const parts = formatAnswerForSlack(text);
    if (blocks && parts.length > 0) parts[parts.length - 1]!.blocks.push(...(blocks as never[]));
    const timestamps: string[] = [];
    for (const [index, part] of parts.entries()) {
      if (index === 0 && messageTs) {
        await client.chat.update({ channel: target.channel, ts: messageTs, text: part.text, blocks: part.blocks as never });
        timestamps.push(messageTs);
      } else {
        const posted = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text: part.text, blocks: part.blocks as never, unfurl_links: false });
        timestamps.push(posted.ts!);
        await noteStarted(posted.ts!);
      }
    }
    return timestamps;
  };

  /** Completes the open stream with the rest of `text`; what does not fit follows in new messages. */
  const complete = async (text: string, blocks: unknown[]): Promise<string[] | undefined> => {
    if (!streamOpen || diverged || !text.startsWith(sentRaw)) return undefined;
    const whole = neutraliseMentions(text);
    if (!whole.startsWith(sent)) return undefined;
    if (whole.length <= limit) {
      await stopStream({ markdown_text: whole.slice(sent.length), blocks });
      return [messageTs!];
    }
    const firstRaw = cutForMessage(text, limit, sentRaw.length);
    const first = neutraliseMentions(firstRaw.trimEnd());
    if (!first.startsWith(sent)) return undefined;
    await stopStream({ markdown_text: first.slice(sent.length) });
    const rest = formatAnswerForSlack(text.slice(firstRaw.length).trim());
    if (rest.length > 0) rest[rest.length - 1]!.blocks.push(...(blocks as never[]));
    const timestamps = [messageTs!];
    for (const part of rest) {
      const posted = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text: part.text, blocks: part.blocks as never, unfurl_links: false });
      timestamps.push(posted.ts!);
      await noteStarted(posted.ts!);
    }
    return timestamps;
  };

  return {
    append(delta) {
      streamed += delta;
      schedule();
    },
    breakParagraph() {
      if (streamed && !streamed.endsWith('\n\n')) streamed += '\n\n';
      breakAt = streamed.length;
    },
    discardSinceBreak() {
      streamed = streamed.slice(0, breakAt);
      // Text already on screen cannot be taken back by appending: the final answer will replace the message.
      if (sentRaw.length > streamed.length) diverged = true;
    },
    async finish(answer, { runId, note }) {
      await settle();
      // What people saw streaming stays (a preamble, then the answer); otherwise the answer is the model's final words.
      const body = streamed.trim() && streamed.trimEnd().endsWith(answer.trim()) ? streamed.trim() : answer.trim();
      const text = [body || '_(The model returned an empty answer.)_', note ? `_${note}_` : ''].filter(Boolean).join('\n\n');
      const blocks = [feedbackBlock(runId)];
      const completed = await complete(text, blocks).catch((error) => {
        options.logger.warn('could not complete the streamed answer; replacing it', { error });
        return undefined;
      });
      return completed ?? replace(text, blocks);
    },
    async fail(sentence) {
      await settle();
      return replace(sentence, undefined);
    },
  };
}

/** A streamed message shown by editing: the markdown block renders as the finished answer will. */
function asMessage(markdown: string) {
  return { text: markdown, blocks: [{ type: 'markdown', text: markdown }] as never };
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

/**
 * The longest head of `text` that fits one message once neutralised, cut after a paragraph, else a line, outside a
 * code fence if there is such a cut; never shorter than `atLeast` (what is already on screen).
 */
export function cutForMessage(text: string, limit: number, atLeast = 0): string {
  const fits = (end: number) => neutraliseMentions(text.slice(0, end)).length <= limit;
  const outsideFence = (end: number) => (text.slice(0, end).match(/^\s*(```|~~~)/gm)?.length ?? 0) % 2 === 0;
  const ends: number[] = [];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) ends.push(i + 1);
  const candidates = ends.filter((end) => end >= atLeast && end <= limit && fits(end)).reverse();
  const line = candidates.find(outsideFence) ?? candidates[0];
  // A paragraph end is better, unless it would leave the message much shorter than a line end does.
  const paragraph = candidates.find((end) => text[end - 2] === '\n' && outsideFence(end) && end >= (line ?? 0) * 0.6);
  const chosen = paragraph ?? line;
  if (chosen !== undefined) return text.slice(0, chosen);
  // No line ends in reach: cut at a space, else anywhere, as late as fits.
  let end = Math.min(text.length, limit);
  while (end > atLeast && !fits(end)) end--;
  const space = text.lastIndexOf(' ', end);
  return text.slice(0, space > atLeast ? space + 1 : Math.max(end, atLeast));
}
