/** Small builders so each test states only what matters to it. */
import type { ConversationTurn, ThreadConversation } from '../../src/core/conversation';
import type { ThreadFile } from '../../src/core/thread-file';
import type { ContextInput } from '../../src/context';

let tsCounter = 1_700_000_000;

export function userTurn(speaker: string, text: string, files: ThreadFile[] = []): ConversationTurn {
  tsCounter += 1;
  return {
    role: 'user',
    speaker,
    speakerId: `U_${speaker.toUpperCase()}`,
    text,
    ts: `${tsCounter}.000100`,
    edited: false,
    files: files.map((f) => ({ id: f.id, name: f.name })),
  };
}

export function botTurn(text: string, activity?: string): ConversationTurn {
  tsCounter += 1;
  return {
    role: 'assistant',
    speaker: 'threadwise',
    speakerId: 'B_THREADWISE',
    text,
    ts: `${tsCounter}.000100`,
    edited: false,
    files: [],
    ...(activity ? { activity } : {}),
  };
}

export function file(id: string, name: string, extra: Partial<ThreadFile> = {}): ThreadFile {
  const fileType = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : 'binary';
  return {
    id,
    name,
    mimeType: fileType === 'pdf' ? 'application/pdf' : 'application/octet-stream',
    fileType,
    sizeBytes: 120_000,
    messageTs: '1700000000.000100',
    authorName: 'Ana',
    ...extra,
  };
}

function thread(turns: ConversationTurn[]): ThreadConversation {
  return { channelId: 'C0SUPPORT', threadTs: '1700000000.000100', turns };
}

/** A request as the app would make it, with a generous budget unless the test says otherwise. */
export function contextInput(turns: ConversationTurn[], overrides: Partial<ContextInput> = {}): ContextInput {
  return {
    botName: 'threadwise',
    conversation: thread(turns),
    files: [],
    preloads: new Map(),
    skills: [
      { name: 'large_files', description: 'How to read big PDFs, DOCX and spreadsheets without loading them whole.' },
      { name: 'jira', description: 'Format Jira tickets.', whenToUse: 'someone asks for a ticket' },
    ],
    now: new Date('2026-05-12T12:03:00Z'),
    timeZone: 'Europe/Berlin',
    channel: { name: 'support', purpose: 'Help for the support team', isDirectMessage: false },
    budget: { contextWindow: 128_000, reserveForAnswer: 8_000 },
    model: 'gpt-4o',
    ...overrides,
  };
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p.type === 'text' ? p.text : `[image ${p.detail}]`)).join('\n');
  return String(content);
}
