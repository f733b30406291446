/**
 * The answer writer's decisions, as a state machine with no I/O: `step(state, event)` gives the next state, the
 * name of the transition taken and the effects the driver must perform, in order. Slack calls go out one at a time;
 * the driver feeds each call's outcome back as `call-succeeded` or `call-failed` before anything else happens.
 *
 *   idle ──start-stream──▶ (startStream) ──stream-started──▶ streaming ──message-full──▶ full
 *     │                         └──stream-refused──▶ (postMessage) ──fell-back-to-edits──▶ updating ──message-full──▶ full
 *     └ any live phase ──diverge──▶ diverged        any live call failed ──went-off──▶ off
 *   any phase ──finish / fail──▶ finishing ──(stopStream, postMessage, update, delete…)──▶ finished
 *                                 a failed completion ──complete-failed──▶ replace;  a failed replacement ──end-failed──▶ off
 */
import { formatAnswerForSlack, toSafeMarkdown, toSlackMessage } from '../format';
import { composeAnswer, liveMessage, liveView, splitKeepingScreen, withFooter, type AnswerMessage, type Block, type LiveView } from './answer-text';

export type Phase =
  /** Live output on, nothing in the thread yet. */
  | 'idle'
  /** A chat stream is open and grows with the text. */
  | 'streaming'
  /** Slack refused streaming: one posted message is edited as the text grows, at most once per update interval. */
  | 'updating'
  /** The live message holds all one message may; the rest waits for the end and continues in new messages. */
  | 'full'
  /** The thread shows text the answer no longer has (a voided model call): the end replaces it. */
  | 'diverged'
  /** No live output (not wanted, or a Slack call failed): the end completes or replaces what is there. */
  | 'off'
  /** finish or fail is putting the answer in its final form. */
  | 'finishing'
  /** The answer is in the thread. A later fail() still replaces it. */
  | 'finished';

export interface WriterConfig {
  /** Show the answer while it is written; otherwise it is posted whole at the end. */
  live: boolean;
  /** Characters one streamed message may hold before the rest continues in new messages. */
  limit: number;
  flushIntervalMs: number;
  updateIntervalMs: number;
  /** Display names for the mentions the model writes. */
  nameOf?: (userId: string) => string | undefined;
}

/** What of the answer is in the thread. */
interface Screen {
  /** The messages the answer fills, in order: the live one first, then any continuations. */
  messages: string[];
  /** The first message is a chat stream not yet stopped. */
  streamOpen: boolean;
  /** The markdown the live message shows (mentions neutralised). */
  shown: string;
}

/** A Slack call; the driver performs it and reports back. */
export type SlackCall =
  | { kind: 'start-stream'; markdown: string }
  | { kind: 'append-stream'; ts: string; markdown: string }
  | { kind: 'stop-stream'; ts: string; markdown?: string; blocks?: Block[] }
  | { kind: 'post'; message: AnswerMessage }
  | { kind: 'edit'; ts: string; message: AnswerMessage }
  | { kind: 'delete'; ts: string };

export type Effect =
  | SlackCall
  /** Fire a `flush` event after this long. */
  | { kind: 'arm-timer'; delayMs: number }
  | { kind: 'disarm-timer' }
  /** Tell the caller about a message the answer started (options.onMessage), before more of the answer goes out. */
  | { kind: 'note-message'; ts: string }
  | { kind: 'log'; level: 'debug' | 'warn'; message: string; error?: unknown }
  /** finish/fail is done: these are the messages the answer fills. */
  | { kind: 'resolve'; messages: string[] }
  /** finish/fail could not put the answer in the thread. */
  | { kind: 'reject'; error: unknown };

export type WriterEvent =
  | { type: 'append'; delta: string }
  | { type: 'break' }
  | { type: 'discard' }
  /** The flush timer fired: show what has arrived. */
  | { type: 'flush'; at: number }
  | { type: 'finish'; answer: string; note?: string; footer: Block[] }
  | { type: 'fail'; sentence: string }
  | { type: 'call-succeeded'; ts?: string; at: number }
  | { type: 'call-failed'; error: unknown; at: number };

export type Transition =
  | 'text-buffered'
  | 'paragraph-broken'
  | 'text-voided'
  | 'flush-skipped'
  | 'start-stream'
  | 'append-to-stream'
  | 'edit-message'
  | 'wait-for-edit-slot'
  | 'stream-started'
  | 'stream-refused'
  | 'fell-back-to-edits'
  | 'text-shown'
  | 'message-full'
  | 'diverge'
  | 'went-off'
  | 'complete-stream'
  | 'replace-answer'
  | 'end-step-done'
  | 'end-step-skipped'
  | 'complete-failed'
  | 'end-failed'
  | 'finished';

/** A live call under way, and what the live message shows once it succeeds. */
type LiveCall = { kind: 'start' | 'append' | 'post' | 'edit'; view: LiveView };

/** One step of the end: a Slack call, and what to log instead of failing when it may fail. */
interface EndStep {
  call: SlackCall;
  tolerate?: { level: 'debug' | 'warn'; message: string };
}

interface Ending {
  /** `complete` finishes the open stream and continues in new messages; `replace` rewrites what is there. */
  how: 'complete' | 'replace';
  /** The answer as it must end up, and the blocks under its last message (kept to plan a replacement). */
  text: string;
  footer: Block[];
  /** The step under way, then the steps still to take. */
  current: EndStep;
  rest: EndStep[];
  /** The messages the answer fills so far, in order. */
  filled: string[];
}

export interface WriterState {
  phase: Phase;
  /** The raw text received. */
  text: string;
  /** Where the text of the current model call began. */
  breakAt: number;
  screen: Screen;
  /** A flush is scheduled. */
  timerSet: boolean;
  /** When the live message was last posted or edited. */
  editedAt: number;
  live?: LiveCall;
  ending?: Ending;
}

export interface Step {
  state: WriterState;
  transition: Transition;
  effects: Effect[];
}

export function initialState(config: WriterConfig): WriterState {
  return {
    phase: config.live ? 'idle' : 'off',
    text: '',
    breakAt: 0,
    screen: { messages: [], streamOpen: false, shown: '' },
    timerSet: false,
    editedAt: 0,
  };
}

const LIVE_PHASES: ReadonlySet<Phase> = new Set(['idle', 'streaming', 'updating']);

export function step(state: WriterState, event: WriterEvent, config: WriterConfig): Step {
  switch (event.type) {
    case 'append':
      return buffer({ ...state, text: state.text + event.delta }, config);
    case 'break': {
      const text = state.text && !state.text.endsWith('\n\n') ? `${state.text}\n\n` : state.text;
      return { state: { ...state, text, breakAt: text.length }, transition: 'paragraph-broken', effects: [] };
    }
    case 'discard':
      return discard(state, config);
    case 'flush':
      return flush({ ...state, timerSet: false }, event.at, config);
    case 'finish':
      return beginEnd(state, composeAnswer(state.text, event.answer, event.note), event.footer, config, true);
    case 'fail':
      return beginEnd(state, event.sentence, [], config, false);
    case 'call-succeeded':
      return state.ending ? endStepSucceeded(state, state.ending, event.ts, config) : liveCallSucceeded(state, event.ts, event.at);
    case 'call-failed':
      return state.ending ? endStepFailed(state, state.ending, event.error, config) : liveCallFailed(state, event.error);
  }
}

// ── While the model writes ────────────────────────────────────────────────────────────────────────────────────

function buffer(state: WriterState, config: WriterConfig): Step {
  if (!LIVE_PHASES.has(state.phase) || state.timerSet) return { state, transition: 'text-buffered', effects: [] };
  return { state: { ...state, timerSet: true }, transition: 'text-buffered', effects: [{ kind: 'arm-timer', delayMs: config.flushIntervalMs }] };
}

/** The text since the last break is void. Text already on screen cannot be taken back by appending. */
function discard(state: WriterState, config: WriterConfig): Step {
  const next = { ...state, text: state.text.slice(0, state.breakAt) };
  const voided: Step = { state: next, transition: 'text-voided', effects: [] };
  if (!isShowing(state.phase)) return voided;
  // What is on screen, or will be once the call under way succeeds.
  const onScreen = [state.screen.shown, state.live?.view.shown ?? ''].reduce((a, b) => (b.length > a.length ? b : a));
  if (onScreen === '' || liveView(next.text, config.limit, onScreen, config.nameOf).shown.startsWith(onScreen)) return voided;
  return { state: { ...next, phase: 'diverged' }, transition: 'diverge', effects: [] };
}

/** Phases in which what is on screen still follows the text. */
function isShowing(phase: Phase): boolean {
  return LIVE_PHASES.has(phase) || phase === 'full' || phase === 'off';
}

function flush(state: WriterState, at: number, config: WriterConfig): Step {
  const skipped: Step = { state, transition: 'flush-skipped', effects: [] };
  if (!LIVE_PHASES.has(state.phase)) return skipped;
  if (state.live) {
    // Calls go one at a time; the driver never flushes during one, but a flush that comes anyway waits its turn.
    return { state: { ...state, timerSet: true }, transition: 'flush-skipped', effects: [{ kind: 'arm-timer', delayMs: config.flushIntervalMs }] };
  }
  const shown = state.screen.shown;
  const view = liveView(state.text, config.limit, shown, config.nameOf);
  if (!view.shown.startsWith(shown)) {
    // Shorter and a prefix: the end of the text is held back (a half-written mention), nothing is wrong.
    if (shown.startsWith(view.shown)) return skipped;
    return { state: { ...state, phase: 'diverged' }, transition: 'diverge', effects: [] };
  }
  if (view.shown.length === shown.length) {
    return view.full && state.phase !== 'idle' ? { state: { ...state, phase: 'full' }, transition: 'message-full', effects: [] } : skipped;
  }
  const delta = view.shown.slice(shown.length);
  const ts = state.screen.messages[0] ?? '';
  if (state.phase === 'idle') {
    return { state: { ...state, live: { kind: 'start', view } }, transition: 'start-stream', effects: [{ kind: 'start-stream', markdown: delta }] };
  }
  if (state.phase === 'streaming') {
    return { state: { ...state, live: { kind: 'append', view } }, transition: 'append-to-stream', effects: [{ kind: 'append-stream', ts, markdown: delta }] };
  }
  const wait = state.editedAt + config.updateIntervalMs - at;
  if (wait > 0) return { state: { ...state, timerSet: true }, transition: 'wait-for-edit-slot', effects: [{ kind: 'arm-timer', delayMs: wait }] };
  return { state: { ...state, live: { kind: 'edit', view } }, transition: 'edit-message', effects: [{ kind: 'edit', ts, message: liveMessage(view.shown) }] };
}

function liveCallSucceeded(state: WriterState, ts: string | undefined, at: number): Step {
  const call = state.live;
  if (!call) return { state, transition: 'text-shown', effects: [] };
  const { view } = call;
  const next: WriterState = { ...state, live: undefined };
  // A discard while the call was under way may have set the phase to diverged: it stays so.
  switch (call.kind) {
    case 'start':
    case 'post': {
      if (!ts) return liveCallFailed(state, new Error(`Slack answered ${call.kind === 'start' ? 'chat.startStream' : 'chat.postMessage'} without a ts`));
      const started = call.kind === 'start';
      const phase = state.phase === 'idle' ? (view.full ? 'full' : started ? 'streaming' : 'updating') : state.phase;
      return {
        state: { ...next, phase, screen: { messages: [ts], streamOpen: started, shown: view.shown }, editedAt: started ? state.editedAt : at },
        transition: started ? 'stream-started' : 'fell-back-to-edits',
        effects: [{ kind: 'note-message', ts }],
      };
    }
    case 'append':
    case 'edit': {
      const growing: Phase = call.kind === 'append' ? 'streaming' : 'updating';
      const phase = state.phase === growing && view.full ? 'full' : state.phase;
      return {
        state: { ...next, phase, screen: { ...state.screen, shown: view.shown }, editedAt: call.kind === 'edit' ? at : state.editedAt },
        transition: phase === 'full' && state.phase !== 'full' ? 'message-full' : 'text-shown',
        effects: [],
      };
    }
  }
}

function liveCallFailed(state: WriterState, error: unknown): Step {
  const call = state.live;
  const next: WriterState = { ...state, live: undefined };
  if (call?.kind === 'start') {
    // Nothing is on screen: with the phase diverged meanwhile there is nothing worth posting; the end posts it all.
    if (state.phase !== 'idle') return { state: next, transition: 'stream-refused', effects: [] };
    return {
      state: { ...next, live: { kind: 'post', view: call.view } },
      transition: 'stream-refused',
      effects: [
        { kind: 'log', level: 'debug', message: 'chat.startStream refused; streaming by editing a message', error },
        { kind: 'post', message: liveMessage(call.view.shown) },
      ],
    };
  }
  return {
    state: { ...next, phase: LIVE_PHASES.has(state.phase) ? 'off' : state.phase },
    transition: 'went-off',
    effects: [{ kind: 'log', level: 'warn', message: 'streaming the answer failed; it will be posted whole at the end', error }],
  };
}

// ── The end ───────────────────────────────────────────────────────────────────────────────────────────────────

function beginEnd(state: WriterState, text: string, footer: Block[], config: WriterConfig, mayComplete: boolean): Step {
  const settled: WriterState = { ...state, timerSet: false, live: undefined, ending: undefined };
  const effects: Effect[] = state.timerSet ? [{ kind: 'disarm-timer' }] : [];
  const completion = mayComplete && state.phase !== 'diverged' ? completionSteps(state.screen, text, footer, config) : undefined;
  if (completion) return takeNext(settled, { how: 'complete', text, footer, filled: [] }, completion, effects, 'complete-stream');
  return takeNext(settled, { how: 'replace', text, footer, filled: [] }, replacementSteps(state.screen, text, footer, config), effects, 'replace-answer');
}

/**
 * The open stream completed with the rest of the text; what does not fit one message follows in new messages, split
 * by format/'s splitter so that the first keeps what is on screen. Undefined when the stream cannot be completed:
 * nothing is streaming, or the screen shows something the answer does not begin with.
 */
function completionSteps(screen: Screen, text: string, footer: Block[], config: WriterConfig): EndStep[] | undefined {
  const limit = config.limit;
  const ts = screen.messages[0];
  if (!screen.streamOpen || ts === undefined) return undefined;
  const whole = toSafeMarkdown(text, { resolveName: config.nameOf });
  if (whole.length <= limit) {
    return whole.startsWith(screen.shown) ? [{ call: stopStream(ts, whole.slice(screen.shown.length), footer) }] : undefined;
  }
  const [head = '', ...rest] = splitKeepingScreen(whole, limit, screen.shown);
  if (!head.startsWith(screen.shown)) return undefined;
  const more = head.slice(screen.shown.length);
  if (rest.length === 0) return [{ call: stopStream(ts, more, footer) }];
  const continuations = withFooter(rest.map(toSlackMessage), footer).map((message): EndStep => ({ call: { kind: 'post', message } }));
  return [{ call: stopStream(ts, more, []) }, ...continuations];
}

/**
 * What is in the thread rewritten as the answer: the stream stopped, each message the answer already fills edited
 * into the next part, further parts posted, messages left over deleted.
 */
function replacementSteps(screen: Screen, text: string, footer: Block[], config: WriterConfig): EndStep[] {
  const parts = withFooter(formatAnswerForSlack(text, { resolveName: config.nameOf }), footer);
  const steps: EndStep[] = [];
  const [first] = screen.messages;
  if (screen.streamOpen && first !== undefined) {
    steps.push({ call: { kind: 'stop-stream', ts: first }, tolerate: { level: 'debug', message: 'chat.stopStream failed before replacing the answer' } });
  }
  parts.forEach((message, index) => {
    const ts = screen.messages[index];
    steps.push({ call: ts === undefined ? { kind: 'post', message } : { kind: 'edit', ts, message } });
  });
  for (const ts of screen.messages.slice(parts.length)) {
    steps.push({ call: { kind: 'delete', ts }, tolerate: { level: 'warn', message: 'could not delete a message the answer no longer needs' } });
  }
  return steps;
}

function stopStream(ts: string, markdown: string, blocks: Block[]): SlackCall {
  return { kind: 'stop-stream', ts, ...(markdown ? { markdown } : {}), ...(blocks.length ? { blocks } : {}) };
}

/** Starts the next end step, or finishes when none is left. */
function takeNext(state: WriterState, ending: Omit<Ending, 'current' | 'rest'>, steps: EndStep[], effects: Effect[], transition: Transition): Step {
  const [current, ...rest] = steps;
  if (!current) {
    return { state: { ...state, phase: 'finished', ending: undefined }, transition, effects: [...effects, { kind: 'resolve', messages: ending.filled }] };
  }
  return { state: { ...state, phase: 'finishing', ending: { ...ending, current, rest } }, transition, effects: [...effects, current.call] };
}

function endStepSucceeded(state: WriterState, ending: Ending, ts: string | undefined, config: WriterConfig): Step {
  const call = ending.current.call;
  const screen = { ...state.screen, messages: [...state.screen.messages] };
  const effects: Effect[] = [];
  let filled = ending.filled;
  switch (call.kind) {
    case 'stop-stream':
      screen.streamOpen = false;
      // Completing the stream puts the first message of the answer in place; a replacement edits it next.
      if (ending.how === 'complete') filled = [...filled, call.ts];
      break;
    case 'post':
      if (!ts) return endStepFailed(state, ending, new Error('Slack answered chat.postMessage without a ts'), config);
      screen.messages.push(ts);
      filled = [...filled, ts];
      effects.push({ kind: 'note-message', ts });
      break;
    case 'edit':
      filled = [...filled, call.ts];
      break;
    case 'delete':
      screen.messages = screen.messages.filter((message) => message !== call.ts);
      break;
    default:
      break;
  }
  const rest = ending.rest;
  return takeNext({ ...state, screen }, { ...ending, filled }, rest, effects, rest.length ? 'end-step-done' : 'finished');
}

function endStepFailed(state: WriterState, ending: Ending, error: unknown, config: WriterConfig): Step {
  const { call, tolerate } = ending.current;
  // Whether or not Slack stopped it, a stream is not stopped twice.
  const screen = call.kind === 'stop-stream' ? { ...state.screen, streamOpen: false } : state.screen;
  const next: WriterState = { ...state, screen };
  if (tolerate) {
    const effects: Effect[] = [{ kind: 'log', level: tolerate.level, message: tolerate.message, error }];
    return takeNext(next, ending, ending.rest, effects, 'end-step-skipped');
  }
  if (ending.how === 'complete') {
    const effects: Effect[] = [{ kind: 'log', level: 'warn', message: 'could not complete the streamed answer; replacing it', error }];
    return takeNext(next, { how: 'replace', text: ending.text, footer: ending.footer, filled: [] }, replacementSteps(screen, ending.text, ending.footer, config), effects, 'complete-failed');
  }
  return { state: { ...next, phase: 'off', ending: undefined }, transition: 'end-failed', effects: [{ kind: 'reject', error }] };
}
