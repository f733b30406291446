import type { WebClient } from '@slack/web-api';
import { systemClock, type Clock } from '../../core/clock';
import type { Logger } from '../../logging/logger';
import { feedbackBlock } from '../feedback-block';
import { MARKDOWN_CHARS_PER_MESSAGE } from '../format/slack-limits';
import { initialState, step, type Effect, type SlackCall, type WriterConfig, type WriterEvent } from './machine';

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
  /** Time and timers; the system clock unless a test drives time by hand. */
  clock?: Clock;
  /** A person's display name, so a `<@U…>` the model writes reads "@Ana" (without pinging Ana). */
  nameOf?: (userId: string) => string | undefined;
  /**
   * "Also send to channel": an answer of at most this many characters is posted as a thread reply broadcast to the
   * channel (reply_broadcast). Needs `stream: false` — a streamed message cannot be broadcast once it exists.
   */
  broadcastUpTo?: number;
}

/** Well under Slack's 12,000-character markdown limit, leaving room for a note under the answer. */
const STREAM_LIMIT = 11_000;

/**
 * Writes one answer into the thread. With `stream`, the text appears as the model writes it: chat.startStream,
 * chat.appendStream, then chat.stopStream with the rest of the answer and the feedback buttons, so the pieces
 * streamed add up to the answer. Where Slack refuses streaming, one message is posted and edited (chat.update) at
 * most about once a second, and given its final form at the end. An answer longer than one message continues in new
 * messages, split by format/'s splitter (the first message keeps what was streamed). Mentions the model writes never
 * ping anyone and show the person's name; tables go as aligned code blocks.
 *
 * The decisions are the state machine in ./machine; this driver only performs them: it keeps the state, runs the
 * timer, and makes the Slack calls one at a time, feeding each outcome back before the next event.
 */
export function createAnswerWriter(client: WebClient, target: AnswerTarget, options: AnswerWriterOptions): AnswerWriter {
  const clock = options.clock ?? systemClock;
  const config: WriterConfig = {
    live: options.stream,
    limit: Math.min(options.streamLimit ?? STREAM_LIMIT, MARKDOWN_CHARS_PER_MESSAGE),
    flushIntervalMs: options.flushIntervalMs ?? 700,
    updateIntervalMs: options.updateIntervalMs ?? 1_000,
    nameOf: options.nameOf,
  };
  let state = initialState(config);
  let cancelTimer: (() => void) | undefined;
  let queue: Promise<void> = Promise.resolve();
  /** Set by a finish short enough to go to the channel too: its first post is broadcast. */
  let broadcastNextPost = false;
  /** What the last finish or fail came to, set by its resolve or reject effect. */
  let outcome: { messages: string[] } | { error: unknown } | undefined;
  const takeOutcome = () => {
    const taken = outcome;
    outcome = undefined;
    return taken;
  };

  const apply = async (event: WriterEvent): Promise<void> => {
    const next = step(state, event, config);
    state = next.state;
    for (const effect of next.effects) {
      const pending = perform(effect);
      if (pending) await pending;
    }
  };

  /** Runs `turn` after every turn before it: events that lead to Slack calls are handled one at a time. */
  const enqueue = <T>(turn: () => Promise<T>): Promise<T> => {
    const done = queue.then(turn);
    queue = done.then(
      () => {},
      () => {},
    );
    return done;
  };

  /** Events that only change the text are applied at once; they make no Slack call, only (re)arm the timer. */
  const applyNow = (event: WriterEvent) => {
    apply(event).catch((error: unknown) => options.logger.error('the answer writer failed to take in the text', { error }));
  };

  const perform = (effect: Effect): Promise<void> | undefined => {
    switch (effect.kind) {
      case 'arm-timer':
        cancelTimer?.();
        cancelTimer = clock.setTimeout(() => {
          cancelTimer = undefined;
          // The time is read when the flush's turn comes, not when the timer fired.
          enqueue(() => apply({ type: 'flush', at: clock.now() })).catch((error: unknown) =>
            options.logger.error('the answer writer failed to show the text so far', { error }),
          );
        }, effect.delayMs);
        return undefined;
      case 'disarm-timer':
        cancelTimer?.();
        cancelTimer = undefined;
        return undefined;
      case 'log':
        options.logger[effect.level](effect.message, effect.error === undefined ? undefined : { error: effect.error });
        return undefined;
      case 'note-message':
        return noteMessage(effect.ts);
      case 'resolve':
        outcome = { messages: effect.messages };
        return undefined;
      case 'reject':
        outcome = { error: effect.error };
        return undefined;
      default:
        return call(effect).then(
          (ts) => apply({ type: 'call-succeeded', ts, at: clock.now() }),
          (error: unknown) => apply({ type: 'call-failed', error, at: clock.now() }),
        );
    }
  };

  const noteMessage = async (ts: string) => {
    await options.onMessage?.(ts).catch((error: unknown) => options.logger.warn('could not record a message the answer started in', { ts, error }));
  };

  /** One Slack call; the ts of the message it created, where it created one. */
  const call = async (effect: SlackCall): Promise<string | undefined> => {
    const { channel, threadTs } = target;
    switch (effect.kind) {
      case 'start-stream': {
        const started = await client.chat.startStream({
          channel,
          thread_ts: threadTs,
          markdown_text: effect.markdown,
          ...(target.recipientUserId ? { recipient_user_id: target.recipientUserId } : {}),
          ...(target.recipientTeamId ? { recipient_team_id: target.recipientTeamId } : {}),
        });
        return started.ts;
      }
      case 'append-stream':
        await client.chat.appendStream({ channel, ts: effect.ts, markdown_text: effect.markdown });
        return undefined;
      case 'stop-stream':
        await client.chat.stopStream({
          channel,
          ts: effect.ts,
          ...(effect.markdown ? { markdown_text: effect.markdown } : {}),
          ...(effect.blocks ? { blocks: effect.blocks } : {}),
        });
        return undefined;
      case 'post': {
        const broadcast = broadcastNextPost;
        broadcastNextPost = false;
        const posted = await client.chat.postMessage({
          channel,
          thread_ts: threadTs,
          text: effect.message.text,
          blocks: effect.message.blocks,
          unfurl_links: false,
          reply_broadcast: broadcast,
        });
        return posted.ts;
      }
      case 'edit':
        await client.chat.update({ channel, ts: effect.ts, text: effect.message.text, blocks: effect.message.blocks });
        return undefined;
      case 'delete':
        await client.chat.delete({ channel, ts: effect.ts });
        return undefined;
    }
  };

  /** finish and fail: after every call under way, the end's own calls; then what they came to. */
  const end = async (event: WriterEvent): Promise<string[]> => {
    const result = await enqueue(async () => {
      await apply(event);
      return takeOutcome();
    });
    if (!result) throw new Error('the answer writer ended without an outcome');
    if ('error' in result) throw result.error;
    return result.messages;
  };

  return {
    append: (delta) => applyNow({ type: 'append', delta }),
    breakParagraph: () => applyNow({ type: 'break' }),
    discardSinceBreak: () => applyNow({ type: 'discard' }),
    finish: (answer, { runId, note }) => {
      if (options.broadcastUpTo !== undefined && !options.stream && answer.length <= options.broadcastUpTo) broadcastNextPost = true;
      return end({ type: 'finish', answer, note, footer: [feedbackBlock(runId)] });
    },
    fail: (sentence) => end({ type: 'fail', sentence }),
  };
}
