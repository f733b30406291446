import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest } from '../../../src/core/chat';
import { createFileSubAgent } from '../../../src/tools/ask-file/file-reader';
import type { RunStepRecord } from '../../../src/core/run-step';
import { createSlots } from '../../../src/core/slots';
import { airworthinessDirective } from '../../support/fixtures';
import { openThreadWithFiles, type ThreadWithFiles } from '../../support/thread-with-files';

/** A model that answers from a script and remembers what it was asked. */
function scriptedModel(reply: (request: ChatRequest, call: number) => string | Promise<string>) {
  const requests: ChatRequest[] = [];
  const model: ChatModel = {
    name: 'scripted-reader',
    async complete(request) {
      requests.push(request);
      const text = await reply(request, requests.length);
      const prompt = request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      return { text, toolCalls: [], finishReason: 'stop', usage: { inputTokens: Math.ceil(prompt.length / 4), outputTokens: Math.ceil(text.length / 4) } };
    },
  };
  return { model, requests, prompt: (i: number) => requests[i]!.messages.at(-1)!.content as string };
}

const section = (title: string, sentence: string, times: number) => `## ${title}\n\n${`${sentence} `.repeat(times).trim()}`;
const handbook = [
  '# Staff handbook',
  section('Leave', 'Employees receive 28 days of paid leave per calendar year, booked through the HR portal.', 12),
  section('Expenses', 'Travel expenses are reimbursed within 30 days when receipts are uploaded.', 12),
  section('Security', 'Laptops must use full-disk encryption and lock after five minutes.', 12),
  section('Notice', 'The notice period is two months for both sides after probation.', 12),
].join('\n\n');
const memo = '# Memo\n\nThe offsite moves to Lisbon on 12 May. Bring your badge.';

describe('the file reader behind ask_file', () => {
  let thread: ThreadWithFiles;
  beforeAll(async () => {
    thread = await openThreadWithFiles([
      { name: 'handbook.md', mimetype: 'text/markdown', text: handbook },
      { name: 'memo.md', mimetype: 'text/markdown', text: memo },
      { name: 'directive.pdf', mimetype: 'application/pdf', bytes: airworthinessDirective() },
    ]);
  });
  afterAll(async () => {
    await thread?.close();
  });
  const signal = () => new AbortController().signal;

  it('reads a small file whole in one call and records what it cost', async () => {
    const steps: RunStepRecord[] = [];
    const reader = scriptedModel(() => 'The offsite is in Lisbon on 12 May (memo.md, § Memo).');
    const agent = createFileSubAgent({ model: reader.model, files: thread.files, recordStep: (s) => steps.push(s), slots: createSlots(1) });

    const answer = await agent.askFile('F2', 'Where is the offsite?', signal());

    expect(answer).toBe('The offsite is in Lisbon on 12 May (memo.md, § Memo).\n\n(Read all of memo.md.)');
    expect(reader.requests).toHaveLength(1);
    expect(reader.prompt(0)).toContain('[memo.md, § Memo, chars 0–');
    expect(reader.prompt(0)).toContain('Bring your badge.');
    expect(steps.map((s) => [s.kind, s.name])).toEqual([
      ['subagent_tool', 'read_file'],
      ['subagent_model', 'scripted-reader'],
    ]);
    expect(steps[1]).toMatchObject({ iteration: 2, inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
  });

  it('searches a large file with its own queries, then answers from the passages it found', async () => {
    const steps: RunStepRecord[] = [];
    const reader = scriptedModel((_, call) => (call === 1 ? '1. notice period\n- "probation"' : 'Two months after probation (handbook.md, § Notice).'));
    const agent = createFileSubAgent({
      model: reader.model,
      files: thread.files,
      recordStep: (s) => steps.push(s),
      limits: { wholeFileTokens: 100, batchTokens: 2_000 },
      slots: createSlots(1),
    });

    const answer = await agent.askFile('F1', 'How long must I wait to leave after resigning?', signal());

    expect(reader.requests).toHaveLength(2);
    expect(reader.prompt(0)).toContain('Question: How long must I wait to leave after resigning?');
    expect(reader.prompt(1)).toContain('[handbook.md, § Notice, chars');
    expect(answer).toMatch(/^Two months after probation \(handbook\.md, § Notice\)\.\n\n\(Read \d passages? of handbook\.md: .*§ Notice/);
    const searches = steps.filter((s) => s.name === 'search_file').map((s) => (s.arguments as { query: string }).query);
    expect(searches).toEqual(['How long must I wait to leave after resigning?', 'notice period', 'probation']);
  });

  it('reads passages in batches and combines the notes when they do not fit one call', async () => {
    const reader = scriptedModel((request, call) => {
      const prompt = request.messages.at(-1)!.content as string;
      if (call === 1) return 'leave days\nexpenses reimbursed\nnotice period';
      if (prompt.startsWith('Question') && prompt.includes('(part')) {
        return prompt.includes('§ Leave') ? '28 days of leave (handbook.md, § Leave).' : 'NOTHING RELEVANT';
      }
      return 'Staff get 28 days of leave (handbook.md, § Leave).';
    });
    const agent = createFileSubAgent({
      model: reader.model,
      files: thread.files,
      recordStep: () => {},
      limits: { wholeFileTokens: 100, batchTokens: 300, maxModelCalls: 6 },
      slots: createSlots(1),
    });

    const answer = await agent.askFile('F1', 'How many leave days, and how are expenses and notice handled?', signal());

    const combine = reader.requests.at(-1)!.messages.at(-1)!.content as string;
    expect(reader.requests.length).toBeLessThanOrEqual(6);
    expect(combine).toMatch(/^Question: .*\n\nNotes from handbook\.md:\n\nPart 1:\n28 days of leave/);
    expect(combine).not.toContain('NOTHING RELEVANT');
    expect(answer).toMatch(/^Staff get 28 days of leave/);
  });

  it('cites the pages of a PDF', async () => {
    const reader = scriptedModel((_, call) => (call === 1 ? 'Addis Ababa accident fatalities' : '157 people died (directive.pdf, p. 2).'));
    // Searched, not read whole: the generated directive's plain prose takes fewer tokens than a real notice's.
    const agent = createFileSubAgent({ model: reader.model, files: thread.files, recordStep: () => {}, limits: { wholeFileTokens: 4_000 }, slots: createSlots(1) });

    const answer = await agent.askFile('F3', 'How many people died in the Addis Ababa accident?', signal());

    expect(reader.prompt(1)).toMatch(/\[directive\.pdf, p\. 2, chars [\d]+–[\d]+\]\n[^[]*157 fatalities/);
    expect(answer).toContain('(Read ');
    expect(answer).toMatch(/p\. 2/);
  });

  it('stops at its call cap and says why', async () => {
    const reader = scriptedModel(() => 'leave\nexpenses');
    const agent = createFileSubAgent({
      model: reader.model,
      files: thread.files,
      recordStep: () => {},
      limits: { wholeFileTokens: 100, batchTokens: 300, maxModelCalls: 1 },
      slots: createSlots(1),
    });
    await expect(agent.askFile('F1', 'Summarise the leave and expense rules', signal())).rejects.toThrow(
      /The reader of handbook\.md used up its budget \(1 model calls/,
    );
    expect(reader.requests).toHaveLength(1);
  });

  it('reports a failing model with the file it was reading, and records the failed step', async () => {
    const steps: RunStepRecord[] = [];
    const reader = scriptedModel(() => {
      throw new Error('503 The engine is currently overloaded');
    });
    const agent = createFileSubAgent({ model: reader.model, files: thread.files, recordStep: (s) => steps.push(s), slots: createSlots(1) });

    await expect(agent.askFile('F2', 'Where is the offsite?', signal())).rejects.toThrow(
      'The reader of memo.md could not finish: 503 The engine is currently overloaded',
    );
    expect(steps.at(-1)).toMatchObject({ kind: 'subagent_model', error: '503 The engine is currently overloaded' });
  });

  it('lets only as many readers run at once as it has slots; the others wait their turn', async () => {
    let inFlight = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const reader = scriptedModel(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight -= 1;
      return 'Lisbon (memo.md, § Memo).';
    });
    const agent = createFileSubAgent({ model: reader.model, files: thread.files, recordStep: () => {}, slots: createSlots(2) });

    const answers = Promise.all([1, 2, 3].map(() => agent.askFile('F2', 'Where is the offsite?', signal())));
    // Let each waiting reader through, one model call at a time.
    for (let released = 0; released < 3; ) {
      await new Promise((resolve) => setImmediate(resolve));
      const gate = gates.shift();
      if (gate) {
        gate();
        released += 1;
      }
    }
    expect((await answers).every((a) => a.startsWith('Lisbon'))).toBe(true);
    expect(most).toBe(2);
  });
});
