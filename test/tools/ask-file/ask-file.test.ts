import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel } from '../../../src/core/chat';
import { createFileSubAgent } from '../../../src/tools/ask-file/file-reader';
import type { RunStepRecord } from '../../../src/core/run-step';
import { createSlots } from '../../../src/core/slots';
import { askFileTool } from '../../../src/tools/ask-file/ask-file';
import { type SubAgentRunner, type ToolContext } from '../../../src/tools/tool';
import { UnknownFileError } from '../../../src/core/thread-file';
import { openThreadWithFiles, type ThreadWithFiles } from '../../support/thread-with-files';

const contract = (party: string, months: number) =>
  `# Contract with ${party}\n\n## Termination\n\nEither side may end this contract with ${months} months' notice in writing.`;

/** Answers as a reader would: from the excerpt it was given, citing it. */
const readerModel: ChatModel = {
  name: 'scripted-reader',
  async complete({ messages }) {
    const prompt = messages.at(-1)!.content as string;
    const [, name] = prompt.match(/\[([^,\]]+), /) ?? [];
    const [, months] = prompt.match(/with (\d+) months' notice/) ?? [];
    return { text: `${months} months' notice (${name}, § Termination).`, toolCalls: [], finishReason: 'stop', usage: { inputTokens: 120, outputTokens: 12 } };
  },
};

describe('ask_file', () => {
  let thread: ThreadWithFiles;
  const activity: string[] = [];
  const steps: RunStepRecord[] = [];
  beforeAll(async () => {
    thread = await openThreadWithFiles([
      { name: 'acme.md', mimetype: 'text/markdown', text: contract('Acme', 3) },
      { name: 'globex.md', mimetype: 'text/markdown', text: contract('Globex', 6) },
      { name: 'initech.md', mimetype: 'text/markdown', text: contract('Initech', 1) },
    ]);
  });
  afterAll(async () => {
    await thread?.close();
  });

  const context = (subAgent?: SubAgentRunner): ToolContext => ({
    files: thread.files,
    skills: { read: () => Promise.reject(new Error('no skills here')) },
    signal: new AbortController().signal,
    tokensLeft: () => 100_000,
    showImage: () => {},
    recordActivity: (entry) => activity.push(entry),
    subAgent,
  });
  const reader = () => createFileSubAgent({ model: readerModel, files: thread.files, recordStep: (s) => steps.push(s), slots: createSlots(2) });

  it("brings back the reader's cited answer, framed as file data", async () => {
    const result = await askFileTool.execute({ id: 'F1', question: 'What notice period does the contract set?' }, context(reader()));

    expect(result.split('\n')[0]).toBe(
      'Answer from a reader of F1 "acme.md" to "What notice period does the contract set?"; its citations point into the file.',
    );
    expect(result).toContain('<file_data id="F1" name="acme.md" part="reader answer">');
    expect(result).toContain("3 months' notice (acme.md, § Termination).");
    expect(activity.at(-1)).toBe("asked F1 'What notice period does the contract set?'");
    expect(steps.some((s) => s.kind === 'subagent_model' && s.inputTokens === 120)).toBe(true);
  });

  it('compares contracts with one call per file, run side by side', async () => {
    const runner = reader();
    const question = 'What notice period does the contract set?';
    const results = await Promise.all(['F1', 'F2', 'F3'].map((id) => askFileTool.execute({ id, question }, context(runner))));

    expect(results.map((r) => r.match(/(\d+) months' notice \((\w+\.md)/)!.slice(1))).toEqual([
      ['3', 'acme.md'],
      ['6', 'globex.md'],
      ['1', 'initech.md'],
    ]);
  });

  it('refuses without a reader, without a question, or for a file not in the thread', async () => {
    await expect(askFileTool.execute({ id: 'F1', question: 'Notice?' }, context())).rejects.toThrow(
      /ask_file is not available here; use search_file/,
    );
    await expect(askFileTool.execute({ id: 'F1', question: ' ' }, context(reader()))).rejects.toThrow(/ask_file needs a question about F1/);
    await expect(askFileTool.execute({ id: 'F7', question: 'Notice?' }, context(reader()))).rejects.toThrow(UnknownFileError);
  });

  it('shows which file it is reading in the status line', () => {
    expect(askFileTool.describeProgress({ id: 'F2', question: 'What notice period does the contract set?' }, context())).toBe(
      "reading globex.md to answer 'What notice period does the contract set?'…",
    );
  });
});
