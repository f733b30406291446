/**
 * A long, realistic-looking thread for budget tests and the bench: people asking, the bot answering at length,
 * files attached along the way, a few of them preloaded. Seeded, so every run builds the same thread; a new seed
 * gives new strings (nothing cached yet).
 */
import { seededRandom } from '../support/seeded-random';
import type { ConversationTurn } from '../../src/core/conversation';
import type { ThreadFile } from '../../src/core/thread-file';

const WORDS = (
  'the a to of and in is for on that with as it be this are by from at or an was we can not have our will ' +
  'report revenue customer ticket deploy review budget quarter region north south team owner status blocked ' +
  'waiting release version error timeout database query latency p99 index migration rollback incident page ' +
  'contract clause notice termination renewal invoice payment overdue approve plan scope risk estimate sprint ' +
  'backlog priority escalate support login password screenshot dashboard export spreadsheet column row total ' +
  'average median growth decline forecast target margin cost headcount hiring onboarding policy leave travel ' +
  'expense receipt vendor procurement security audit compliance GDPR retention backup restore cluster node ' +
  'kubernetes pod memory CPU disk alert threshold Slack thread channel message file PDF DOCX slide section'
).split(' ');
const PEOPLE = ['Ana', 'Bo', 'Chen', 'Dana', 'Emeka', 'Fatima'];
const TYPES: Array<[ext: string, mime: string]> = [
  ['pdf', 'application/pdf'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['csv', 'text/csv'],
  ['png', 'image/png'],
  ['md', 'text/markdown'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
];

export interface SyntheticThread {
  turns: ConversationTurn[];
  files: ThreadFile[];
  preloads: Map<string, string>;
}

export function makeSyntheticThread(messages: number, fileCount: number, seed = 1): SyntheticThread {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const sentence = () => {
    const words = Array.from({ length: 6 + Math.floor(random() * 14) }, () => pick(WORDS));
    return `${words.join(' ')}${random() < 0.2 ? '?' : '.'}`;
  };
  const paragraph = (sentences: number) => Array.from({ length: sentences }, sentence).join(' ');

  const turns: ConversationTurn[] = [];
  const files: ThreadFile[] = [];
  const preloads = new Map<string, string>();
  const userTurns = Math.ceil(messages / 2);
  for (let i = 0; i < messages; i += 1) {
    const ts = `${1_760_000_000 + i * 60}.${String(seed).padStart(6, '0')}`;
    // Alternating, and always ending on a person's message: the current turn.
    if (i % 2 === 1 && i !== messages - 1) {
      const activity = random() < 0.5 ? `read F${1 + Math.floor(random() * Math.max(1, files.length))} p. ${1 + Math.floor(random() * 40)}` : undefined;
      turns.push({ role: 'assistant', speaker: 'threadwise', speakerId: 'B1', text: paragraph(3 + Math.floor(random() * 8)), ts, edited: false, files: [], ...(activity ? { activity } : {}) });
      continue;
    }
    const speaker = pick(PEOPLE);
    // Spread the files evenly over the user messages.
    const due = Math.floor(((i / 2 + 1) * fileCount) / userTurns) - files.length;
    const attached: ThreadFile[] = [];
    for (let k = 0; k < due; k += 1) {
      const [ext, mimeType] = TYPES[files.length % TYPES.length]!;
      const id = `F${files.length + 1}`;
      const file: ThreadFile = { id, name: `${pick(WORDS)}-${pick(WORDS)}-${files.length + 1}.${ext}`, mimeType, fileType: ext, sizeBytes: 2_000 + Math.floor(random() * 3_000_000), messageTs: ts, authorName: speaker, ...(ext === 'pdf' ? { pageCount: 1 + Math.floor(random() * 120) } : {}) };
      files.push(file);
      attached.push(file);
      if (ext === 'csv' || ext === 'md') preloads.set(id, paragraph(60).slice(0, 8 * 1024));
    }
    turns.push({ role: 'user', speaker, speakerId: `U${speaker}`, text: paragraph(1 + Math.floor(random() * 4)), ts, edited: false, files: attached.map((f) => ({ id: f.id, name: f.name })) });
  }
  return { turns, files, preloads };
}
