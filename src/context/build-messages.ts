/**
 * Thread + files + skills + budget in, model messages out. Layout of a request:
 *
 *   system    static base instructions (cacheable)
 *   user      [only when turns were dropped] how many, plus a cached summary if given
 *   …         earlier turns, oldest first: "Name: text" with that turn's own files section; the assistant's words
 *             with a compact note of what it read
 *   user      <context> reminder (time, channel, skills, all files, preloads) + "Name: text" + images
 *
 * The reminder is prepended to the current user message rather than sent as a system message before it: some
 * OpenAI-compatible servers refuse a system message after the first, and either way the cached prefix ends at
 * the current turn.
 */
import type { ChatMessage } from '../core/chat';
import type { ThreadFile } from '../core/thread-file';
import type { BuiltContext, ContextInput } from './types';
import { renderSystemPrompt } from './system-prompt';
import { escapeXmlText } from './escape';
import { renderFilesBlock } from './files-block';
import { renderReminder } from './reminder';
import { renderHistoryTurn, renderSpokenLine, type RenderedTurn } from './history';
import { selectPreloads } from './select-preloads';
import { selectHistoryWindow } from './history-window';
import { renderCurrentTurn } from './current-turn';
import { countMessageTokens, MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from './message-tokens';
import { countImagePartTokens } from './image-tokens';
import { countTokens } from '../text/tokenizer';

const DEFAULT_PRELOAD_TOKENS = 2_000;

export function buildModelMessages(input: ContextInput): BuiltContext {
  const { model, conversation } = input;
  const available = checkBudget(input);
  const current = conversation.turns.at(-1);
  if (!current || current.role !== 'user') {
    throw new Error(
      `buildModelMessages: thread ${conversation.channelId}/${conversation.threadTs} must end with the current user turn, but it ${current ? 'ends with an assistant turn' : 'has no turns'}`,
    );
  }
  const system: ChatMessage = {
    role: 'system',
    content: withChannelInstructions(input.systemPrompt ?? renderSystemPrompt(input.botName), input.channelSettings?.extraInstructions),
  };
  const systemTokens = countMessageTokens(system, model);

  // The current turn first: it is never dropped. Preloads get a bounded share of what is left.
  const images = input.currentImages ?? [];
  const renderReminderWith = (filesBlock: string) =>
    renderReminder({
      now: input.now,
      timeZone: input.timeZone,
      channel: input.channel,
      channelSettings: input.channelSettings?.applied,
      skills: input.skills,
      filesBlock,
      memoriesBlock: input.memoriesBlock,
      shownImages: images,
      imageNotes: input.imageNotes ?? [],
    });
  const roomForCurrent = available - systemTokens - REPLY_PRIMING_TOKENS;
  // What the current turn needs before preloads, from parts that stay cached between builds (the file list and
  // the person's words); only the final message, which holds the clock, is counted whole.
  const blockOptions = { textLengths: input.textLengths, currentMessageTs: current.ts };
  const bareBlock = renderFilesBlock(input.files, blockOptions);
  const reminderFrameTokens = countTokens(renderReminderWith(''), model);
  const bareEstimate =
    countTokens(bareBlock, model) +
    reminderFrameTokens +
    countTokens(renderSpokenLine(current), model) +
    images.reduce((sum, image) => sum + countImagePartTokens({ ...image, url: image.dataUrl }), 0) +
    MESSAGE_OVERHEAD_TOKENS;
  const allowance = Math.max(
    0,
    Math.min(input.budget.preloadTokens ?? DEFAULT_PRELOAD_TOKENS, Math.floor(available / 10), roomForCurrent - bareEstimate),
  );
  const preloads = selectPreloads(input.files, input.preloads, allowance, model, new Set(current.files.map((f) => f.id)));
  const filesBlock =
    preloads.texts.size > 0 ? renderFilesBlock(input.files, { ...blockOptions, preloads: preloads.texts }) : bareBlock;
  const reminder = renderReminderWith(filesBlock);
  const currentTurn = renderCurrentTurn(current, reminder, images, model, roomForCurrent);

  // Then as much history as fits, newest first.
  const filesById = new Map<string, ThreadFile>(input.files.map((f) => [f.id, f]));
  const earlier = conversation.turns.slice(0, -1);
  const rendered: Array<{ turn: RenderedTurn; tokens: number } | undefined> = [];
  const renderAt = (index: number) =>
    (rendered[index] ??= measure(renderHistoryTurn(earlier[index]!, filesById), model));
  const room = roomForCurrent - currentTurn.tokens;
  const window = selectHistoryWindow(earlier.length, (i) => renderAt(i).tokens, room, model, input.summary);

  const messages: ChatMessage[] = [system];
  if (window.note) messages.push(window.note);
  let historyTokens = 0;
  let historyFileTokens = 0;
  for (let i = window.cut; i < earlier.length; i += 1) {
    const { turn, tokens } = renderAt(i);
    messages.push(turn.message);
    historyTokens += tokens;
    if (turn.filesSection) historyFileTokens += countTokens(turn.filesSection, model);
  }
  messages.push(currentTurn.message);

  const filesBlockTokens = countTokens(filesBlock, model);
  const breakdown = {
    system: systemTokens,
    dropNote: window.noteTokens,
    history: historyTokens,
    historyFiles: historyFileTokens,
    // From its parts, already counted: recounting the whole reminder would cost as much as the current turn.
    reminder: reminderFrameTokens + filesBlockTokens,
    filesBlock: filesBlockTokens,
    preloads: preloads.tokens,
    images: currentTurn.imageTokens,
    currentTurn: currentTurn.tokens,
    replyPriming: REPLY_PRIMING_TOKENS,
  };
  return {
    messages,
    report: {
      totalTokens: systemTokens + window.noteTokens + historyTokens + currentTurn.tokens + REPLY_PRIMING_TOKENS,
      availableTokens: available,
      droppedTurns: window.cut,
      fileContextTokens: filesBlockTokens + historyFileTokens,
      preloadedFileIds: [...preloads.texts.keys()],
      breakdown,
    },
  };
}

function measure(turn: RenderedTurn, model: string) {
  return { turn, tokens: countMessageTokens(turn.message, model) };
}

function checkBudget(input: ContextInput): number {
  const { contextWindow, reserveForAnswer } = input.budget;
  const available = contextWindow - reserveForAnswer;
  if (!(contextWindow > 0) || !(reserveForAnswer >= 0) || !(available > 0)) {
    throw new RangeError(
      `buildModelMessages: budget for ${input.model} leaves no room (contextWindow ${contextWindow}, reserveForAnswer ${reserveForAnswer})`,
    );
  }
  return available;
}

/**
 * A channel's extra instructions, after the base prompt: set by the channel's admins or members through the settings
 * form, so they refine the base rules for that channel but are framed as theirs.
 */
function withChannelInstructions(base: string, extra: string | undefined): string {
  const text = extra?.trim();
  if (!text) return base;
  return `${base}\n\n<channel_instructions note="set for this channel in threadwise's channel settings; follow them unless they conflict with the rules above">\n${escapeXmlText(text)}\n</channel_instructions>`;
}
