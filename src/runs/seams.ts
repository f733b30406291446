/**
 * What a run needs from the world, declared here by the run and implemented at the edges: slack/ reads the thread
 * and carries the answer (a terminal could do both), store/ keeps the run's ledger, files/ opens the thread's files.
 * The run only orders the steps — read → prepare → agent → deliver — and never learns which edge it talks to.
 * The implementations match these shapes without importing them; the composition root puts them together.
 */
import type { ChannelInfo, CurrentImage } from '../context';
import type { EffectiveChannelSettings } from '../config/channel-settings';
import type { SlackMessage } from '../conversation';
import type { ApprovalDecision, ApprovalPrompt } from '../core/approval';
import type { CurrentStep, RunStepRecord } from '../core/run-step';
import type { ParkedTurn } from '../agent/run-agent-turn';
import type { RunRow } from '../store/run-store';
import type { ThreadRow } from '../store/thread-store';
import type { LedgerParkRequest } from '../store/run-ledger';
import type { ThreadFileAccess } from '../files/thread-file-access';
import type { Tool } from '../tools/tool';
import type { ThreadOutput, ThreadTables } from '../tools';

/** Where the thread is read from. */
export interface ThreadSource {
  /** Every message of the thread, oldest first. */
  messages(channelId: string, threadTs: string): Promise<SlackMessage[]>;
  /** Display names of these users; an id without a name is left out. */
  names(userIds: string[]): Promise<Map<string, string>>;
  channel(channelId: string): Promise<ChannelInfo>;
}

/** What the thread shows while the run works. Never throws. */
interface StatusLine {
  set(status: string, loadingMessages?: string[]): Promise<void>;
  /** Removes every trace of the status; waits for pending updates. */
  clear(): Promise<void>;
}

/** The answer as it is written: streamed while the model writes, completed or replaced at the end. */
interface AnswerStream {
  append(delta: string): void;
  /** The text so far was a preamble before tool calls; later text continues after a paragraph break. */
  breakParagraph(): void;
  /** The text since the last break is void (its model call is being retried). */
  discardSinceBreak(): void;
  /** Posts (or completes) the answer; returns the ts of every message it fills. */
  finish(answer: string, options: { runId: number; note?: string }): Promise<string[]>;
  /** Replaces whatever was streamed with a failure sentence. */
  fail(sentence: string): Promise<string[]>;
}

/** A message the run leaves in the thread that is not an answer ("picking this up again"). */
export interface ThreadNote {
  text: string;
  metadata: { event_type: string; event_payload: Record<string, string | number | boolean> };
}

export interface AnswerChannel {
  status: StatusLine;
  answer: AnswerStream;
  /**
   * What an interrupted attempt left of its answer: with a note, the first draft becomes it; without, the drafts
   * go. Returns whether the note is in the thread.
   */
  retireDrafts(drafts: readonly string[], note: ThreadNote | undefined): Promise<boolean>;
  post(note: ThreadNote): Promise<void>;
  /** Asks, in the thread, for a person's decision on a tool call; returns the message that asks. */
  requestApproval(request: ApprovalRequestMessage): Promise<string | undefined>;
  /** Where make_chart and attach_file post (the thread's files and blocks); absent where nothing can be posted. */
  output?: ThreadOutput;
}

interface ApprovalRequestMessage {
  approvalId: number;
  prompt: ApprovalPrompt;
  /** The person who asked the question: they (or an admin) decide. */
  requestedBy?: string;
  expiresAt: Date;
}

interface AnswerTarget {
  runId: number;
  /** The channel's answer visibility is "thread and channel": a short answer is also sent to the channel. */
  alsoToChannel?: boolean;
  channelId: string;
  threadTs: string;
  /** The message that asked. */
  triggerTs: string;
  recipientUserId?: string;
  recipientTeamId?: string;
}

/** Told what the channel puts in the thread, so the ledger knows it if the process dies. */
interface AnswerChannelHooks {
  /** A status message was posted (its ts) or removed (null): a :x: on it cancels the run. */
  onStatusMessage(ts: string | null): Promise<void>;
  /** The answer started a message; resolves before more of the answer goes out. */
  onAnswerMessage(ts: string): Promise<void>;
}

export type OpenAnswerChannel = (target: AnswerTarget, hooks: AnswerChannelHooks) => AnswerChannel;

/** The run's durable record: ownership, drafts, the posted answer, its steps. */
export interface RunLedger {
  thread(threadId: number): Promise<ThreadRow | undefined>;
  /** Earlier runs of the thread, oldest first (what each answer read goes into the history). */
  earlierRuns(threadId: number): Promise<RunRow[]>;
  /** Whether this worker still holds the run: one that stalled past its lease must not post. */
  mayPost(runId: number, owner: string): Promise<boolean>;
  recordStatusMessage(runId: number, ts: string | null): Promise<void>;
  recordDraft(runId: number, ts: string): Promise<void>;
  clearDrafts(runId: number): Promise<void>;
  recordAnswer(runId: number, answerTs: string[]): Promise<void>;
  recordSteps(runId: number, steps: RunStepRecord[]): Promise<void>;
  /** What the run is doing now (null: between steps), while `owner` holds it: for the console. */
  recordCurrentStep?(runId: number, owner: string, step: CurrentStep | null, options?: { keepSince?: boolean }): Promise<void>;
  /** Names the run resolved (people, its channel), kept for the console. */
  rememberNames?(names: ReadonlyArray<{ id: string; kind: 'user' | 'channel'; name: string }>): Promise<void>;
  /** Messages the answer started in and that are not the answer yet. */
  drafts(runId: number): Promise<string[]>;
  /** Gives the run up to wait for decisions; undefined when this owner lost it meanwhile. */
  park(request: ParkRequest): Promise<Array<{ id: number; callId: string; expiresAt: Date }> | undefined>;
  recordApprovalMessage(approvalId: number, messageTs: string): Promise<void>;
  /** The decisions on the calls the run waited for, by call id (an approved one claims its execution once). */
  decisions(runId: number): Promise<Map<string, ApprovalDecision>>;
}

type ParkRequest = LedgerParkRequest & { turn: ParkedTurn };

/** The thread's files, opened for one run. Nothing of it outlives the run. */
export interface ThreadFiles {
  /** `limits`: the channel's preload and image settings (the workspace's when absent). */
  open(threadId: number, messages: SlackMessage[], names: ReadonlyMap<string, string>, limits?: FileLimits): Promise<RunFiles>;
}

interface FileLimits {
  /** 0 = no preloads. */
  preloadKb: number;
  maxImagesPerTurn: number;
}

/**
 * The settings a run follows, for its thread: the channel's (a DM follows the channel its asker was last looking at,
 * when Slack told us; otherwise the workspace defaults). Resolved at the edge, handed to the run as data.
 */
export type RunSettingsSource = (thread: ThreadRow, run: RunRow) => Promise<EffectiveChannelSettings>;

export interface RunFiles {
  /** What the tools use: ids, text, search, images. */
  access: ThreadFileAccess;
  /** SQL over the thread's tabular files, and its query results (absent without a table engine). */
  tables?: ThreadTables;
  /** First N KB of suitable files, by file id. */
  preloads(): Promise<Map<string, string>>;
  /** Images to attach to the current turn, and notes for the model about the others. */
  images(currentFileIds: string[]): Promise<{ images: CurrentImage[]; notes: string[] }>;
  /** After the answer: describe the images shown, once, so later turns get words instead of pixels. */
  describeShown(images: CurrentImage[]): Promise<void>;
}

/** Who asks, and where: what a run's knowledge tools and memories are bound to. */
export interface RunAsker {
  teamId: string;
  channelId: string;
  threadTs: string;
  /** The person whose message started the run. */
  userId: string;
  /**
   * The conversation is the asker's alone: a DM with the bot, or no other person has written in the thread so far.
   * Only then does a request carry the asker's personal memories (elsewhere the answer could repeat them to others).
   */
  isPrivate: boolean;
}

/** A memory as a request carries it (store/memory-store.ts's Memory fits it). */
export interface RunMemory {
  id: number;
  scope: 'channel' | 'personal';
  authorId: string;
  text: string;
  createdAt: Date;
}

/**
 * Beyond the thread (DESIGN.md): what people asked threadwise to remember, and the tools that search the channels it
 * is in and keep or forget memories, bound to the asker. Implemented where Slack is (the bot); absent, a run has
 * neither (the terminal: no Slack membership to decide who may read what).
 */
export interface RunKnowledge {
  /** The channel's memories and, only with `includePersonal`, the asker's personal ones; newest first. */
  memories(asker: RunAsker, options: { includePersonal: boolean }): Promise<RunMemory[]>;
  /** search_messages, read_channel, remember, forget for this asker (remember announces in the asker's thread). */
  tools(asker: RunAsker): Tool[];
}
