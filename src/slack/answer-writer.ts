import type { WebClient } from '@slack/web-api';
import type { Logger } from '../logging/logger';
import { formatAnswerForSlack, neutraliseMentions } from './format';
import { feedbackBlock } from './feedback-block';

export interface AnswerTarget {
  channel: string;
  threadTs: string;
  /** Streaming into a channel needs the recipient's user and team ids (Slack: chat.startStream). */
  recipientUserId?: string;
  recipientTeamId?: string;
}

export interface AnswerWriter {
  /** Streamed answer text as the model writes it. */
  append(delta: string): void;
  /** The text so far was a preamble before tool calls; later text continues after a paragraph break. */
  breakParagraph(): void;
  /** Posts (or completes) the answer with feedback buttons; returns the ts of every message it fills. */
  finish(answer: string, options: { runId: number; note?: string }): Promise<string[]>;
  /** Replaces whatever was streamed with a failure sentence. */
  fail(sentence: string): Promise<string[]>;
}

const FLUSH_INTERVAL_MS = 700;
const UPDATE_INTERVAL_MS = 1000;
/** Stop streaming into one message well before Slack's 12,000-character markdown limit; the rest follows at finish. */
const STREAM_LIMIT = 11_000;

/**
 * Writes one answer into the thread. With `stream`, text appears as it is written — chat.startStream /
 * appendStream / stopStream, or where Slack refuses that, one message edited at most about once a second — and the
 * finished answer is formatted and split to fit Slack's limits. Mentions the model writes never ping anyone.
 */
export function createAnswerWriter(client: WebClient, target: AnswerTarget, options: { stream: boolean; logger: Logger }): AnswerWriter {
  let streamed = ''; // raw text received
  let sent = ''; // neutralised text already shown
  let mode: 'idle' | 'stream' | 'update' | 'off' = options.stream ? 'idle' : 'off';
  let messageTs: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let lastUpdate = 0;

  const schedule = () => {
    if (mode === 'off' || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      chain = chain.then(flush).catch((error) => {
        options.logger.warn('streaming the answer failed; it will be posted whole at the end', { error });
        mode = 'off';
      });
    }, FLUSH_INTERVAL_MS);
  };

  const flush = async () => {
    if (mode === 'off') return;
    const shown = neutraliseMentions(safePrefix(streamed));
    if (shown.length <= sent.length || shown.length > STREAM_LIMIT || !shown.startsWith(sent)) return;
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
      } catch (error) {
        options.logger.debug('chat.startStream refused; streaming by editing a message', { error });
        const posted = await client.chat.postMessage({ channel: target.channel, thread_ts: target.threadTs, text: shown });
        messageTs = posted.ts;
        mode = 'update';
        lastUpdate = Date.now();
      }
    } else if (mode === 'stream') {
      await client.chat.appendStream({ channel: target.channel, ts: messageTs!, markdown_text: delta });
    } else if (mode === 'update') {
      if (Date.now() - lastUpdate < UPDATE_INTERVAL_MS) return schedule();
      await client.chat.update({ channel: target.channel, ts: messageTs!, text: shown });
      lastUpdate = Date.now();
    }
    sent = shown;
  };

  const settle = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    await chain.catch(() => {});
  };

  const deliver = async (text: string, blocks: unknown[] | undefined): Promise<string[]> => {
    const parts = formatAnswerForSlack(text);
    if (blocks && parts.length > 0) parts[parts.length - 1]!.blocks.push(...(blocks as never[]));
    const timestamps: string[] = [];
    let first = true;
    for (const part of parts) {
      if (first && messageTs && mode === 'stream') {
        // Close the stream, then give the message its final, formatted form.
        await client.chat.stopStream({ channel: target.channel, ts: messageTs }).catch(() => {});
        await client.chat.update({ channel: target.channel, ts: messageTs, text: part.text, blocks: part.blocks as never });
        timestamps.push(messageTs);
      } else if (first && messageTs) {
        await client.chat.update({ channel: target.channel, ts: messageTs, text: part.text, blocks: part.blocks as never });
        timestamps.push(messageTs);
      } else {
        const posted = await client.chat.postMessage({
          channel: target.channel,
          thread_ts: target.threadTs,
          text: part.text,
          blocks: part.blocks as never,
          unfurl_links: false,
        });
        timestamps.push(posted.ts!);
      }
      first = false;
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
    },
    async finish(answer, { runId, note }) {
      await settle();
      // What people saw streaming stays; the finished answer is the model's final words (after any preamble).
      const body = streamed.trim() && streamed.trimEnd().endsWith(answer.trim()) ? streamed.trim() : answer.trim();
      const text = [body || '_(The model returned an empty answer.)_', note ? `_${note}_` : ''].filter(Boolean).join('\n\n');
      return deliver(text, [feedbackBlock(runId)]);
    },
    async fail(sentence) {
      await settle();
      return deliver(sentence, undefined);
    },
  };
}

/** Text up to a point where no mention or link markup is half-written, so neutralising it is final. */
function safePrefix(text: string): string {
  const open = text.lastIndexOf('<');
  const cut = open > text.lastIndexOf('>') ? open : text.length;
  const at = text.slice(0, cut).search(/@\w*$/);
  return text.slice(0, at >= 0 ? at : cut);
}
