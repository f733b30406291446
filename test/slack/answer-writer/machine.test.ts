/**
 * The answer writer's state machine on its own: no Slack, no timers of its own. A small synchronous driver below
 * plays the part of answer-writer/index.ts — it arms timers on a fake clock, holds the one Slack call under way until
 * the test answers it, and queues flushes that fall due meanwhile — so each test reads as a story told in
 * transitions: what arrived, what went out, what Slack said.
 */
import { describe, expect, it } from 'vitest';
import { initialState, step, type Effect, type Phase, type SlackCall, type Transition, type WriterConfig, type WriterEvent, type WriterState } from '../../../src/slack/answer-writer/machine';
import { composeAnswer } from '../../../src/slack/answer-writer/answer-text';
import { feedbackBlock } from '../../../src/slack/feedback-block';
import { createFakeClock } from '../../support/test-clock';

const SLACK_CALLS = new Set<Effect['kind']>(['start-stream', 'append-stream', 'stop-stream', 'post', 'edit', 'delete']);
const isSlackCall = (effect: Effect): effect is SlackCall => SLACK_CALLS.has(effect.kind);
const FOOTER = [feedbackBlock(7)];

function simulate(overrides: Partial<WriterConfig> = {}) {
  const config: WriterConfig = { live: true, limit: 11_000, flushIntervalMs: 700, updateIntervalMs: 1_000, ...overrides };
  const clock = createFakeClock();
  let state: WriterState = initialState(config);
  let call: SlackCall | undefined;
  let cancelTimer: (() => void) | undefined;
  const waiting: Array<() => WriterEvent> = [];
  const transitions: Transition[] = [];
  const effects: Effect[] = [];
  let outcome: { messages: string[] } | { error: unknown } | undefined;
  let nextTs = 1;

  const dispatch = (event: WriterEvent) => {
    const next = step(state, event, config);
    state = next.state;
    transitions.push(next.transition);
    for (const effect of next.effects) {
      effects.push(effect);
      if (effect.kind === 'arm-timer') {
        cancelTimer?.();
        cancelTimer = clock.setTimeout(() => {
          cancelTimer = undefined;
          enqueue(() => ({ type: 'flush', at: clock.now() }));
        }, effect.delayMs);
      } else if (effect.kind === 'disarm-timer') {
        cancelTimer?.();
        cancelTimer = undefined;
      } else if (effect.kind === 'resolve') outcome = { messages: effect.messages };
      else if (effect.kind === 'reject') outcome = { error: effect.error };
      else if (isSlackCall(effect)) {
        expect(call, 'one Slack call at a time').toBeUndefined();
        call = effect;
      }
    }
  };
  /** Like the driver's queue: an event that may make a Slack call waits until none is under way. */
  const enqueue = (event: () => WriterEvent) => {
    waiting.push(event);
    while (!call && waiting.length) dispatch(waiting.shift()!());
  };
  const answer = (event: WriterEvent) => {
    expect(call, 'a Slack call to answer').toBeDefined();
    call = undefined;
    dispatch(event);
    while (!call && waiting.length) dispatch(waiting.shift()!());
  };

  return {
    clock,
    transitions,
    effects,
    get state() {
      return state;
    },
    get phase(): Phase {
      return state.phase;
    },
    /** The Slack call under way, if any. */
    get call() {
      return call;
    },
    get outcome() {
      return outcome;
    },
    /** The last transition taken. */
    get last() {
      return transitions.at(-1);
    },
    append: (delta: string) => dispatch({ type: 'append', delta }),
    breakParagraph: () => dispatch({ type: 'break' }),
    discard: () => dispatch({ type: 'discard' }),
    finish: (text: string, note?: string) => enqueue(() => ({ type: 'finish', answer: text, note, footer: FOOTER })),
    fail: (sentence: string) => enqueue(() => ({ type: 'fail', sentence })),
    /** Slack accepts the call under way; a call that creates a message gets a fresh ts (returned). */
    ok() {
      const creates = call?.kind === 'start-stream' || call?.kind === 'post';
      const ts = creates ? `1700000000.00000${nextTs++}` : undefined;
      answer({ type: 'call-succeeded', ts, at: clock.now() });
      return ts;
    },
    refuse(error = 'not_allowed_token_type') {
      answer({ type: 'call-failed', error: new Error(error), at: clock.now() });
    },
    /** Answers every call until none is under way; returns the calls, in order. */
    okAll() {
      const made: SlackCall[] = [];
      while (call) {
        made.push(call);
        this.ok();
      }
      return made;
    },
  };
}

/** A writer that has started streaming `text` into message ts 1. */
function streaming(text: string, config: Partial<WriterConfig> = {}) {
  const w = simulate(config);
  w.append(text);
  w.clock.advance(700);
  const ts = w.ok();
  return { w, ts: ts! };
}

/** A writer whose stream Slack refused, now editing the posted message ts 1. */
function updating(text: string, config: Partial<WriterConfig> = {}) {
  const w = simulate(config);
  w.append(text);
  w.clock.advance(700);
  w.refuse();
  const ts = w.ok();
  return { w, ts: ts! };
}

const paragraphs = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => `Paragraph ${from + i}: ${'words that fill the message '.repeat(2).trim()}.`);

describe('while the model writes', () => {
  it('buffers text and arms one flush per interval, however many pieces arrive', () => {
    const w = simulate();
    w.append('Hel');
    w.append('lo');
    expect(w.transitions).toEqual(['text-buffered', 'text-buffered']);
    expect(w.effects).toEqual([{ kind: 'arm-timer', delayMs: 700 }]);
    w.clock.advance(699);
    expect(w.call).toBeUndefined();
    w.clock.advance(1);
    expect(w.last).toBe('start-stream');
    expect(w.call).toEqual({ kind: 'start-stream', markdown: 'Hello' });
  });

  it('start-stream → stream-started: names the message before anything more goes out, then appends only what is new', () => {
    const w = simulate();
    w.append('Let me look');
    w.clock.advance(700);
    w.append(' that up.');
    w.clock.advance(700); // falls due while startStream is under way: waits for it
    const ts = w.ok();
    expect(w.phase).toBe('streaming');
    const afterStart = w.effects.slice(w.effects.findIndex((e) => e.kind === 'start-stream') + 1);
    expect(afterStart.map((e) => e.kind)).toEqual(['arm-timer', 'note-message', 'append-stream']);
    expect(afterStart[1]).toEqual({ kind: 'note-message', ts });
    expect(w.call).toEqual({ kind: 'append-stream', ts, markdown: ' that up.' });
    expect(w.transitions.slice(-2)).toEqual(['stream-started', 'append-to-stream']);
  });

  it('holds back trailing whitespace and a half-written mention until what follows settles it', () => {
    const { w, ts } = streaming('Ask ');
    expect(w.effects.find((e) => e.kind === 'start-stream')).toEqual({ kind: 'start-stream', markdown: 'Ask' });
    w.append('<@U12');
    w.clock.advance(700);
    expect(w.last).toBe('flush-skipped');
    w.append('3> or <!here> today');
    w.clock.advance(700);
    expect(w.call).toEqual({ kind: 'append-stream', ts, markdown: ' @\u200bU123 or @\u200bhere today' });
  });

  it('stream-refused → fell-back-to-edits: posts one message, then edits it at most once per update interval', () => {
    const w = simulate();
    w.append('Let me load the jira skill.');
    w.clock.advance(700);
    w.refuse();
    expect(w.last).toBe('stream-refused');
    expect(w.call).toMatchObject({ kind: 'post', message: { text: 'Let me load the jira skill.' } });
    const ts = w.ok();
    expect(w.last).toBe('fell-back-to-edits');
    expect(w.phase).toBe('updating');

    w.append(' Now the notion one.');
    w.clock.advance(700); // 700 ms after the post: too soon
    expect(w.last).toBe('wait-for-edit-slot');
    expect(w.call).toBeUndefined();
    w.clock.advance(299);
    expect(w.call).toBeUndefined();
    w.clock.advance(1);
    expect(w.last).toBe('edit-message');
    expect(w.call).toEqual({
      kind: 'edit',
      ts,
      message: { text: 'Let me load the jira skill. Now the notion one.', blocks: [{ type: 'markdown', text: 'Let me load the jira skill. Now the notion one.' }] },
    });
    // Never a second start: the refusal is remembered.
    w.ok();
    w.append(' Done.');
    w.clock.advance(1_000);
    expect(w.effects.filter((e) => e.kind === 'start-stream')).toHaveLength(1);
  });

  it('message-full: the live message stops at the first message the end will post; later text waits for the end', () => {
    const [p1, p2, p3] = paragraphs(3);
    const { w, ts } = streaming(`${p1}\n\n`, { limit: 200 });
    w.append(`${p2}\n\n${p3}`);
    w.clock.advance(700);
    expect(w.call).toEqual({ kind: 'append-stream', ts, markdown: `\n\n${p2}` });
    w.ok();
    expect(w.last).toBe('message-full');
    expect(w.phase).toBe('full');
    w.append(' More.');
    expect(w.clock.pending()).toBe(0);
  });

  it('message-full past the split’s own cut: what is on screen stays, and the message ends at the next word', () => {
    const [p1, p2] = paragraphs(2);
    const third = `Third ${'word '.repeat(40)}end.`;
    const { w, ts } = streaming(`${p1}\n\n${p2}\n\n${third.slice(0, 17)}`, { limit: 200 }); // "…Third word word w"
    const before = w.state.screen.shown;
    w.append(third.slice(17));
    w.clock.advance(700);
    expect(w.call).toMatchObject({ kind: 'append-stream', ts, markdown: expect.stringMatching(/^ord( word)*$/) }); // the word finished, then whole words
    w.ok();
    expect(w.phase).toBe('full');
    const shown = w.state.screen.shown;
    expect(shown.startsWith(before) && shown.length <= 200).toBe(true);

    w.finish(`${p1}\n\n${p2}\n\n${third}`);
    const calls = w.okAll();
    expect(calls[0]).toMatchObject({ kind: 'stop-stream', ts });
    expect(calls.slice(1).every((c) => c.kind === 'post')).toBe(true); // completed, not replaced
    const texts = [shown + (calls[0]!.kind === 'stop-stream' ? (calls[0]!.markdown ?? '') : ''), ...calls.slice(1).map((c) => (c.kind === 'post' ? c.message.text : ''))];
    expect(texts.join(' ').split(/\s+/)).toEqual(`${p1}\n\n${p2}\n\n${third}`.split(/\s+/));
  });

  it('diverge: a discard after a break voids text on screen, and nothing more is streamed', () => {
    const { w } = streaming('Let me check.');
    w.breakParagraph();
    w.append('Revenue in Q3 was four point');
    w.clock.advance(700);
    w.ok();
    w.discard();
    expect(w.last).toBe('diverge');
    expect(w.phase).toBe('diverged');
    w.append('Revenue in Q3 was 4.2 M€.');
    w.clock.advance(10_000);
    expect(w.call).toBeUndefined();
  });

  it('text-voided: a discard of text never shown changes nothing on screen', () => {
    const { w, ts } = streaming('Let me check.');
    w.breakParagraph();
    w.append('Revenue in Q3 was four point');
    w.discard();
    expect(w.last).toBe('text-voided');
    expect(w.phase).toBe('streaming');
    w.append('Revenue in Q3 was 4.2 M€.');
    w.clock.advance(700);
    expect(w.call).toEqual({ kind: 'append-stream', ts, markdown: '\n\nRevenue in Q3 was 4.2 M€.' });
  });

  it('diverge while the first message is under way: the message is still recorded, so the end replaces it', () => {
    const w = simulate();
    w.append('Let me check.');
    w.breakParagraph();
    w.append('Four point');
    w.clock.advance(700);
    w.discard();
    expect(w.phase).toBe('diverged');
    const ts = w.ok();
    expect(w.state.screen).toEqual({ messages: [ts], streamOpen: true, shown: 'Let me check.\n\nFour point' });
    w.append('4.2 M€.');
    w.finish('4.2 M€.');
    expect(w.okAll().map((c) => c.kind)).toEqual(['stop-stream', 'edit']);
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('went-off: a failed append stops live output; the end still completes the open stream', () => {
    const { w, ts } = streaming('Part one.');
    w.append(' Part two.');
    w.clock.advance(700);
    w.refuse('ratelimited');
    expect(w.last).toBe('went-off');
    expect(w.phase).toBe('off');
    expect(w.effects.at(-1)).toMatchObject({ kind: 'log', level: 'warn' });
    w.append(' Part three.');
    expect(w.clock.pending()).toBe(0);
    w.finish('Part one. Part two. Part three.');
    expect(w.call).toEqual({ kind: 'stop-stream', ts, markdown: ' Part two. Part three.', blocks: FOOTER });
  });
});

describe('finish, from each phase', () => {
  it('idle, nothing shown yet: replace-answer posts the answer and names it', () => {
    const w = simulate();
    w.append('Forty-two.');
    w.finish('Forty-two.');
    expect(w.last).toBe('replace-answer');
    expect(w.effects.some((e) => e.kind === 'disarm-timer')).toBe(true);
    expect(w.call).toMatchObject({ kind: 'post', message: { text: 'Forty-two.', blocks: [{ type: 'markdown', text: 'Forty-two.' }, FOOTER[0]] } });
    const ts = w.ok();
    expect(w.effects.at(-2)).toEqual({ kind: 'note-message', ts });
    expect(w.last).toBe('finished');
    expect(w.outcome).toEqual({ messages: [ts] });
    // The flush timer went with the finish: nothing more happens.
    w.clock.advance(10_000);
    expect(w.call).toBeUndefined();
  });

  it('off (streaming not wanted): the answer is posted whole, one message per part, the buttons under the last', () => {
    const w = simulate({ live: false });
    expect(w.phase).toBe('off');
    const long = paragraphs(300).join('\n\n');
    w.append(long);
    expect(w.clock.pending()).toBe(0);
    w.finish(long);
    const calls = w.okAll();
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every((c) => c.kind === 'post')).toBe(true);
    expect(JSON.stringify(calls.at(-1))).toContain('feedback_7');
    expect(calls.slice(0, -1).some((c) => JSON.stringify(c).includes('feedback_7'))).toBe(false);
    expect(w.effects.filter((e) => e.kind === 'note-message')).toHaveLength(calls.length);
  });

  it('streaming: complete-stream stops the stream with the rest of the answer and the buttons', () => {
    const { w, ts } = streaming('Use **Jira** for bugs');
    w.append(' and Notion for specs.');
    w.finish('Use **Jira** for bugs and Notion for specs.', 'Cut short.');
    expect(w.last).toBe('complete-stream');
    expect(w.call).toEqual({ kind: 'stop-stream', ts, markdown: ' and Notion for specs.\n\n_Cut short._', blocks: FOOTER });
    w.ok();
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('streaming, an answer longer than one message: the stream takes the first part, new messages the rest', () => {
    const all = paragraphs(6);
    const { w, ts } = streaming(all[0]!, { limit: 200 });
    w.append(`\n\n${all.slice(1).join('\n\n')}`);
    w.finish(all.join('\n\n'));
    const calls = w.okAll();
    expect(calls[0]).toEqual({ kind: 'stop-stream', ts, markdown: `\n\n${all[1]}` });
    expect(calls.slice(1).every((c) => c.kind === 'post')).toBe(true);
    const posted = calls.slice(1).map((c) => (c.kind === 'post' ? (c.message.blocks[0] as { text: string }).text : ''));
    expect([`${all[0]}\n\n${all[1]}`, ...posted].join('\n\n')).toBe(all.join('\n\n'));
    expect(w.outcome).toEqual({ messages: [ts, ...w.effects.filter((e) => e.kind === 'note-message').slice(1).map((e) => (e.kind === 'note-message' ? e.ts : ''))] });
  });

  it('full: completes the first message and continues in new messages', () => {
    const all = paragraphs(5);
    const { w, ts } = streaming(all.join('\n\n'), { limit: 200 });
    expect(w.phase).toBe('full');
    w.finish(all.join('\n\n'));
    const calls = w.okAll();
    expect(calls[0]).toEqual({ kind: 'stop-stream', ts }); // everything of the first part is already on screen
    expect(calls.length).toBeGreaterThan(2);
  });

  it('updating: replace-answer edits the posted message into the answer with the buttons', () => {
    const { w, ts } = updating('Let me load the jira skill.');
    w.append('\n\nUse Jira.');
    w.finish('Use Jira.');
    expect(w.last).toBe('replace-answer');
    expect(w.call).toMatchObject({ kind: 'edit', ts, message: { blocks: [{ type: 'markdown', text: 'Let me load the jira skill.\n\nUse Jira.' }, FOOTER[0]] } });
    w.ok();
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('diverged: stops the stream, then edits it into the answer', () => {
    const { w, ts } = streaming('Let me check.');
    w.breakParagraph();
    w.append('Four point');
    w.clock.advance(700);
    w.ok();
    w.discard();
    expect(w.phase).toBe('diverged');
    w.finish('4.2 M€.');
    expect(w.okAll()).toEqual([
      { kind: 'stop-stream', ts },
      { kind: 'edit', ts, message: { text: '4.2 M€.', blocks: [{ type: 'markdown', text: '4.2 M€.' }, FOOTER[0]] } },
    ]);
  });

  it('complete-failed: a continuation Slack refused turns into a replacement that reuses every message already there', () => {
    const all = paragraphs(6);
    const { w, ts } = streaming(all[0]!, { limit: 200 });
    w.finish(all.join('\n\n'));
    w.ok(); // the stream is stopped with the first part
    const second = w.ok(); // the second part is posted
    w.refuse('channel_not_found'); // the third is not
    expect(w.last).toBe('complete-failed');
    const calls = w.okAll();
    // Re-cut at Slack's own limit the whole answer fits the first message: the second one goes, nothing is doubled.
    expect(calls.map((c) => c.kind)).toEqual(['edit', 'delete']);
    expect(calls[0]).toMatchObject({ ts, message: { text: all.join('\n\n') } });
    expect(calls[1]).toEqual({ kind: 'delete', ts: second });
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('end-failed: a replacement Slack refuses rejects, and a later fail() can still replace what is there', () => {
    const { w, ts } = updating('Thinking aloud.');
    w.finish('The answer.');
    w.refuse('msg_too_long');
    expect(w.last).toBe('end-failed');
    expect(w.phase).toBe('off');
    expect(w.outcome).toMatchObject({ error: { message: 'msg_too_long' } });
    w.fail('Sorry — Slack refused the answer.');
    expect(w.call).toMatchObject({ kind: 'edit', ts, message: { text: 'Sorry — Slack refused the answer.' } });
  });
});

describe('fail, from each phase', () => {
  it('idle: posts the sentence, without buttons', () => {
    const w = simulate();
    w.fail('Sorry — the AI model isn’t answering.');
    expect(w.call).toEqual({ kind: 'post', message: { text: 'Sorry — the AI model isn’t answering.', blocks: [{ type: 'markdown', text: 'Sorry — the AI model isn’t answering.' }] } });
  });

  it('streaming: stops the stream (a refusal there is only logged) and edits it into the sentence', () => {
    const { w, ts } = streaming('Half an answer');
    w.fail('_Stopped: this answer was cancelled._');
    expect(w.call).toEqual({ kind: 'stop-stream', ts });
    w.refuse('message_not_in_streaming_state');
    expect(w.last).toBe('end-step-skipped');
    expect(w.call).toMatchObject({ kind: 'edit', ts, message: { text: '_Stopped: this answer was cancelled._' } });
    w.ok();
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('updating: edits the message into the sentence', () => {
    const { w, ts } = updating('Half an answer');
    w.fail('Sorry.');
    expect(w.okAll()).toEqual([{ kind: 'edit', ts, message: { text: 'Sorry.', blocks: [{ type: 'markdown', text: 'Sorry.' }] } }]);
  });

  it('finished over several messages: the first becomes the sentence, the rest are deleted (a failed delete is only logged)', () => {
    const all = paragraphs(6);
    const { w, ts } = streaming(all.join('\n\n'), { limit: 200 });
    w.finish(all.join('\n\n'));
    w.okAll();
    const [, ...rest] = (w.outcome as { messages: string[] }).messages;
    expect(rest.length).toBeGreaterThan(1);
    w.fail('Sorry.');
    expect(w.call).toMatchObject({ kind: 'edit', ts });
    w.ok();
    w.refuse('message_not_found');
    expect(w.last).toBe('end-step-skipped');
    const calls = w.okAll();
    expect(calls.every((c) => c.kind === 'delete')).toBe(true);
    expect(w.outcome).toEqual({ messages: [ts] });
  });

  it('an empty sentence over a shown message deletes it: nothing is left of the answer', () => {
    const { w, ts } = updating('Half an answer');
    w.fail('');
    expect(w.okAll()).toEqual([{ kind: 'delete', ts }]);
    expect(w.outcome).toEqual({ messages: [] });
  });
});

describe('composeAnswer', () => {
  it('keeps the streamed preamble when the stream ends in the final answer', () => {
    expect(composeAnswer('Let me check.\n\nIt is 42.', 'It is 42.')).toBe('Let me check.\n\nIt is 42.');
  });
  it('takes the final answer when the stream says something else', () => {
    expect(composeAnswer('Let me check.\n\nIt is 41', 'It is 42.')).toBe('It is 42.');
  });
  it('puts a note under the answer in italics, and says so when the answer is empty', () => {
    expect(composeAnswer('', 'It is 42.', 'Stopped at the iteration limit.')).toBe('It is 42.\n\n_Stopped at the iteration limit._');
    expect(composeAnswer('', '  ')).toBe('_(The model returned an empty answer.)_');
  });
});
