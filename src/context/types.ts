/**
 * The context builder's input and output. Everything the request depends on is a parameter (the clock too), so
 * the same input always gives the same messages — which is what keeps earlier turns byte-identical across
 * rebuilds and lets the provider's prompt cache hit.
 */
import type { ChatMessage } from '../core/chat';
import type { ThreadConversation } from '../core/conversation';
import type { ThreadFile } from '../core/thread-file';
import type { CurrentImage, ImageDetail } from '../core/current-image';

export type { CurrentImage, ImageDetail };
import type { SkillSummary } from '../skills/types';

export interface ContextBudget {
  /** The model's context window in tokens (configurable: CONTEXT_WINDOW, else a per-model default). */
  contextWindow: number;
  /** Tokens kept free for the answer (and the run's tool results, which the loop trims on its own). */
  reserveForAnswer: number;
  /**
   * Most tokens preloaded file text may take in the current turn. Default: 2,000, and never more than a tenth of
   * what is available, so preloads cannot crowd out the conversation itself.
   */
  preloadTokens?: number;
}

export interface ChannelInfo {
  name?: string;
  purpose?: string;
  isDirectMessage: boolean;
}

/** A summary of the oldest turns, made earlier and cached by the caller; placed where dropped turns were. */
export interface HistorySummary {
  text: string;
  /** How many of the oldest turns (from the start of the thread) it covers. */
  coversTurns: number;
}

export interface ContextInput {
  botName: string;
  /** Base instructions. Default: renderSystemPrompt(botName). Kept static so the provider can cache it. */
  systemPrompt?: string;
  /** The thread; its last turn is the current one and must be a user turn. */
  conversation: ThreadConversation;
  files: ThreadFile[];
  /** First N KB of text per file id, as the files/ registry preloaded it. */
  preloads: ReadonlyMap<string, string>;
  skills: SkillSummary[];
  now: Date;
  /** IANA time zone, e.g. "Europe/Berlin". */
  timeZone: string;
  channel: ChannelInfo;
  /**
   * The channel's own settings for this run: its extra instructions (appended to the system prompt, which stays
   * static per channel) and which settings it chose itself, as "label: value" lines for the `<context>` section.
   */
  channelSettings?: { extraInstructions: string; applied: string[] };
  currentImages?: CurrentImage[];
  /** Lines about images not shown, e.g. stored descriptions. Treated as data. */
  imageNotes?: string[];
  budget: ContextBudget;
  model: string;
  summary?: HistorySummary;
  /**
   * Extension beyond the API: characters of extracted text per file id, where already known. Shown as an
   * approximate token size in the current file list so the model can choose between load_file and peek_file.
   */
  textLengths?: ReadonlyMap<string, number>;
  /**
   * The memories this request carries (renderMemoriesBlock: the channel's and the asker's own, fitted to a budget),
   * placed right after the files block; absent or '' → no memories block.
   */
  memoriesBlock?: string;
}

interface ContextReport {
  /** Tokens of the whole request as built (messages, per-message overhead and images). */
  totalTokens: number;
  /** contextWindow − reserveForAnswer. */
  availableTokens: number;
  /** Whole earlier turns left out (including those a summary stands for). */
  droppedTurns: number;
  /** Files block of the current turn (list + preloaded data) plus the files sections of earlier turns. */
  fileContextTokens: number;
  /** Ids whose preloaded text made it into the request (some possibly shortened to fit). */
  preloadedFileIds: string[];
  /** Tokens by part: system, history, historyFiles, dropNote, reminder, filesBlock, preloads, images, currentText. */
  breakdown: Record<string, number>;
}

export interface BuiltContext {
  messages: ChatMessage[];
  report: ContextReport;
}
