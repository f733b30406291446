/**
 * ask_file(id, question): hands one question about one large file to a reader with a context of its own (the file
 * sub-agent), and brings back only its compact, cited answer. Comparing files is one call per file in the same turn;
 * the calls run in parallel.
 */
import { z } from 'zod';
import { frameFileData, quoteName } from '../frame-file-data';
import { progressName } from '../progress-name';
import type { Tool } from '../tool';

const parameters = z.object({
  id: z.string().min(1).describe('File id from the files list, e.g. "F1".'),
  question: z.string().describe('One self-contained question about that file; the reader does not see this conversation.'),
});

export const askFileTool: Tool<z.infer<typeof parameters>> = {
  name: 'ask_file',
  description: [
    'Asks a reader with its own context to answer one question from one large file, and returns its compact answer with',
    'citations (file, page or section) inside <file_data> tags. Use it when answering needs many parts of a big file',
    '(what a contract says about X, a summary, every mention of Y) and the file is too large to load. To compare',
    'several files, call it once per file in the same turn with the same question. The reader sees only the file and',
    'your question, so make the question self-contained. For one fact, search_file is quicker; check a claim with',
    'peek_file at the cited place.',
  ].join(' '),
  parameters,
  describeProgress: ({ id, question }, context) => `reading ${progressName(context.files, id)} to answer ${quote(question)}…`,

  async execute({ id, question }, context) {
    const file = context.files.get(id);
    const wanted = question.trim();
    if (!wanted) throw new Error(`ask_file needs a question about ${file.id}, e.g. ask_file("${file.id}", "What notice period does it set?").`);
    if (!context.subAgent) {
      throw new Error('ask_file is not available here; use search_file to find the passages and peek_file to read them.');
    }
    const answer = await context.subAgent.askFile(file.id, wanted, context.signal);
    context.recordActivity(`asked ${file.id} ${quote(wanted)}`);
    return [
      `Answer from a reader of ${file.id} ${quoteName(file.name)} to ${JSON.stringify(wanted)}; its citations point into the file.`,
      frameFileData({ file, content: answer, attributes: { part: 'reader answer' } }),
    ].join('\n');
  },
};

function quote(text: string): string {
  const short = text.trim().replace(/\s+/g, ' ');
  return `'${short.length > 48 ? `${short.slice(0, 47)}…` : short}'`;
}
