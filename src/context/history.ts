/**
 * Earlier turns as the real conversation: people's messages attributed by name, the assistant's own words kept,
 * tool calls and results not replayed — only a compact note of what each answer read, so the model knows what
 * it already looked at. Each turn renders from its own data alone, so it is byte-identical on every rebuild.
 */
import type { ChatMessage } from '../core/chat';
import type { ConversationTurn } from '../core/conversation';
import type { ThreadFile } from '../core/thread-file';
import { cleanSpeakerName } from './escape';
import { renderTurnFilesSection } from './files-block';

export interface RenderedTurn {
  message: ChatMessage;
  /** The files section inside it (counted as file context), '' when the turn had no files. */
  filesSection: string;
}

export function renderHistoryTurn(turn: ConversationTurn, filesById: ReadonlyMap<string, ThreadFile>): RenderedTurn {
  if (turn.role === 'assistant') return { message: renderAssistantTurn(turn), filesSection: '' };
  const filesSection = renderTurnFilesSection(turn.files, filesById);
  const said = renderSpokenLine(turn);
  return { message: { role: 'user', content: filesSection ? `${filesSection}\n\n${said}` : said }, filesSection };
}

/** "Ana: the text" — every user message names its author, since several people talk in one thread. */
export function renderSpokenLine(turn: ConversationTurn): string {
  const text = turn.text.trim() || (turn.files.length > 0 ? '(sent files, no text)' : '(no text)');
  return `${cleanSpeakerName(turn.speaker)}: ${text}`;
}

// The activity note sits after the answer, in brackets the system prompt explains, so the model reads it as a
// record ("what I looked at then") rather than as part of what it said.
function renderAssistantTurn(turn: ConversationTurn): ChatMessage {
  const text = turn.text.trim() || '(no text)';
  const activity = turn.activity?.replace(/\s+/g, ' ').trim();
  return { role: 'assistant', content: activity ? `${text}\n\n[activity: ${activity}]` : text };
}
