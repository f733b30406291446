/**
 * `npm run chat` as a newcomer runs it: a child process against the fake model, with files from the disk. One turn
 * answers on stdout and exits 0; mistakes before the conversation are one sentence and a non-zero exit; a
 * conversation over piped stdin keeps its history and takes files mid-way; signals reach the chat process itself.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI } from '../fakes/fake-openai';
import { lectureNotes } from '../support/fixtures';
import { chatEnvironment, spawnChat } from './support/chat-process';

/** 117 pages of German lecture notes, generated (test/support/fixtures). */
const BOOK = 'topology-notes.pdf';
/** Words found only on p. 95 of the 117-page notes: in the first request they would mean the notes were stuffed in. */
const DEEP_PAGE_WORDS = 'Normalkrümmung';

const requestText = (request: ChatRequestBody) => JSON.stringify(request.messages);
const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at |Error: .*\n.*at /);

describe('npm run chat', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let dataDir: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-chat-'));
    dataDir = path.join(dir, 'data');
  });
  afterAll(async () => {
    await fake?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => fake.reset());

  it(
    'answers one question about a 117-page PDF: the file listed by id, the deep page found by search_file, the answer on stdout',
    async () => {
      fake.enqueue(
        { toolCalls: [{ name: 'search_file', arguments: { id: 'F1', query: DEEP_PAGE_WORDS } }] },
        { text: 'The notes define the **Normalkrümmung** in Definition 73 (topology-notes.pdf, p. 95).' },
      );
      const book = path.join(dir, BOOK);
      await writeFile(book, lectureNotes());
      const chat = spawnChat(['--file', book, 'How do the notes define the normal curvature?'], chatEnvironment(fake, dataDir));
      const { code } = await chat.exited;

      expect(code, chat.stderr()).toBe(0);
      expect(chat.stdout()).toContain('The notes define the **Normalkrümmung** in Definition 73 (topology-notes.pdf, p. 95).');
      const [first, second] = fake.requests;
      // Its language is named once its text is read, which may take longer than the first request's bounded wait.
      expect(requestText(first!)).toMatch(/F1 \| \\"topology-notes\.pdf\\" \| pdf( \(German\))? \| \d+ KB/);
      expect(requestText(first!)).not.toContain(DEEP_PAGE_WORDS);
      const toolResult = second!.messages.find((message) => message.role === 'tool');
      expect(String(toolResult?.content)).toContain(DEEP_PAGE_WORDS);
      expect(String(toolResult?.content)).toContain('p. 95');
      // Status while it worked, on stderr, apart from the answer.
      expect(chat.stderr()).toMatch(/searching topology-notes\.pdf/);
      expect(chat.stdout()).not.toMatch(/searching/);
    },
    240_000,
  );

  it('prints the run as JSON with --json: answer, tool calls, tokens', async () => {
    const notes = path.join(dir, 'notes.md');
    await writeFile(notes, '# Release notes\n\nVersion 4.2 removes the legacy export.\n');
    fake.enqueue({ toolCalls: [{ name: 'load_file', arguments: { id: 'F1' } }] }, { text: 'Version 4.2 removes the legacy export.' });
    const chat = spawnChat(['--json', '--file', notes, 'What does 4.2 remove?'], chatEnvironment(fake, dataDir), { silent: true });
    const { code } = await chat.exited;

    expect(code, chat.stderr()).toBe(0);
    const run = JSON.parse(chat.stdout());
    expect(run).toMatchObject({
      status: 'done',
      answer: 'Version 4.2 removes the legacy export.',
      toolCalls: [{ name: 'load_file', arguments: { id: 'F1' } }],
      modelCalls: 2,
      files: [{ id: 'F1', name: 'notes.md', path: notes }],
    });
    expect(run.tokens.total).toBe(run.tokens.input + run.tokens.output);
    expect(run.tokens.input).toBeGreaterThan(0);
  }, 120_000);

  describe('says what is wrong in one sentence, exits non-zero, no stack trace', () => {
    it('for a file that is not there', async () => {
      const chat = spawnChat(['--file', path.join(dir, 'nope.pdf'), 'what is in it?'], chatEnvironment(fake, dataDir));
      const { code } = await chat.exited;
      expect(code).not.toBe(0);
      expect(chat.ownStderr()).toBe(`threadwise: There is no file at ${path.join(dir, 'nope.pdf')}.`);
      expect(fake.requests).toHaveLength(0);
    }, 60_000);

    it('for a file threadwise cannot read', async () => {
      const binary = path.join(dir, 'firmware.bin');
      await writeFile(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0, 0xff, 0xfe, 0]));
      const chat = spawnChat(['--file', binary, 'what is this?'], chatEnvironment(fake, dataDir));
      const { code } = await chat.exited;
      expect(code).not.toBe(0);
      expect(chat.ownStderr()).toMatch(/^threadwise: firmware\.bin is not a kind of file threadwise reads; it reads PDF, .*\.$/);
      expect(chat.ownStderr().split('\n')).toHaveLength(1);
      noStackTrace(chat.stderr());
    }, 60_000);

    it('without the model variables', async () => {
      const chat = spawnChat(['hello?'], { DATA_DIR: dataDir });
      const { code } = await chat.exited;
      expect(code).not.toBe(0);
      expect(chat.ownStderr()).toMatch(/^threadwise: OPENAI_API_KEY is missing: set your OpenAI API key, or set OPENAI_BASE_URL to .*\)$/);
      noStackTrace(chat.stderr());
    }, 60_000);

    it('for an option that does not exist', async () => {
      const chat = spawnChat(['--verbose', 'hello?'], chatEnvironment(fake, dataDir));
      const { code } = await chat.exited;
      expect(code).toBe(2);
      expect(chat.ownStderr()).toMatch(/^threadwise: there is no option --verbose \(npm run chat -- --help lists them\)/);
    }, 60_000);
  });

  it('keeps a conversation over piped stdin: history in the second request, /file adding a file the next request lists', async () => {
    const runbook = path.join(dir, 'runbook.txt');
    await writeFile(runbook, 'Restart the queue workers with: systemctl restart queue@*\n');
    fake.enqueue({ text: 'The first answer: the queue is called jobs-eu.' }, { text: 'Use systemctl restart queue@* (runbook.txt).' });
    const chat = spawnChat([], chatEnvironment(fake, dataDir), { silent: true });
    chat.write('Which queue do we use in the EU?\n');
    await chat.waitFor('stdout', /The first answer/);
    chat.write(`/file ${runbook}\n`);
    await chat.waitFor('stdout', /Added F1 runbook\.txt/);
    chat.write('/files\n');
    chat.write('And how do I restart its workers?\n');
    chat.endInput();
    const { code } = await chat.exited;

    expect(code, chat.stderr()).toBe(0);
    expect(fake.requests).toHaveLength(2);
    const second = fake.requests[1]!;
    expect(second.messages).toContainEqual(expect.objectContaining({ role: 'assistant', content: expect.stringContaining('The first answer: the queue is called jobs-eu.') }));
    expect(requestText(second)).toContain('F1 | \\"runbook.txt\\" | txt');
    expect(requestText(fake.requests[0]!)).not.toContain('runbook.txt');
    expect(chat.stdout()).toMatch(/^F1 runbook\.txt \(TXT, 58 B\)$/m);
    expect(chat.stdout()).toContain('Use systemctl restart queue@* (runbook.txt).');
  }, 180_000);

  it('is the process that gets the signals: npm starts node directly, and SIGTERM ends the conversation cleanly', async () => {
    const chat = spawnChat([], chatEnvironment(fake, dataDir), { silent: true });
    await chat.waitFor('stderr', /threadwise · gpt-4\.1-mini/);
    const children = chat.children();
    expect(children).toHaveLength(1);
    expect(children[0]!.args).toMatch(/^node (--[\w-]+(=\S+)? )*dist\/chat\.mjs/);

    process.kill(children[0]!.pid, 'SIGTERM');
    const { code } = await chat.exited;
    expect(code).toBe(143);
    noStackTrace(chat.stderr());
  }, 120_000);

  it('stops an answer on Ctrl-C and says so, exiting 130', async () => {
    fake.enqueue({ delayMs: 60_000, then: { text: 'too late' } });
    const chat = spawnChat(['Tell me a long story.'], chatEnvironment(fake, dataDir), { silent: true });
    await fake.waitForRequests(1, 120_000);
    process.kill(chat.children()[0]!.pid, 'SIGINT');
    const { code } = await chat.exited;
    expect(code).toBe(130);
    expect(chat.ownStderr()).toMatch(/threadwise: Stopped: this answer was cancelled\.$/);
    expect(chat.stdout()).not.toContain('too late');
  }, 180_000);
});
