/**
 * The terminal gets the MCP servers of the same mcp.json as the bot: a real stdio server (the fake tracker, a child
 * process of the chat), its tools listed and offered to the model, read-only ones run at once, and one that needs
 * approval asks y/n on the terminal's own prompt — or, for a one-shot question with no terminal to ask on, is not
 * run and the person is told why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type ChatRequestBody, type FakeOpenAI } from '../fakes/fake-openai';
import { STDIO_SERVER_ENTRY } from '../fakes/mcp/stdio-command';
import { chatEnvironment, spawnChat } from './support/chat-process';

const toolNames = (request: ChatRequestBody) => (request.tools ?? []).map((tool) => ('function' in tool ? tool.function.name : ''));
const toolResults = (request: ChatRequestBody) => request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));

describe('npm run chat with MCP servers in mcp.json', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let callLog: string;
  let environment: Record<string, string>;

  /** The calls that reached the tracker server, as it logged them. */
  const trackerCalls = (): Array<{ tool: string; args: Record<string, unknown> }> =>
    existsSync(callLog)
      ? readFileSync(callLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-chat-mcp-'));
    const mcpConfig = path.join(dir, 'mcp.json');
    callLog = path.join(dir, 'tracker-calls.jsonl');
    await writeFile(
      mcpConfig,
      JSON.stringify({
        mcpServers: {
          tracker: {
            command: process.execPath,
            args: ['--import', 'tsx', STDIO_SERVER_ENTRY, 'tracker'],
            env: { FAKE_MCP_CALL_LOG: callLog },
            autoApprove: ['search_issues', 'get_issue'],
          },
        },
      }),
    );
    environment = chatEnvironment(fake, path.join(dir, 'data'), { MCP_CONFIG: mcpConfig });
  });
  afterAll(async () => {
    await fake?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    fake.reset();
    await rm(callLog, { force: true });
  });

  it('lists the server’s tools and runs a read-only one without asking', async () => {
    fake.enqueue(
      { toolCalls: [{ name: 'tracker__search_issues', arguments: { query: 'login' } }] },
      { text: 'PROJ-1 “Login page times out” is in progress.' },
    );
    const chat = spawnChat([], environment, { silent: true });
    chat.write('/tools\n');
    await chat.waitFor('stdout', /tracker__search_issues/);
    chat.write('Is anyone working on the login timeouts?\n');
    await chat.waitFor('stdout', /PROJ-1 “Login page times out” is in progress\./);
    chat.endInput();
    const { code } = await chat.exited;

    expect(code, chat.stderr()).toBe(0);
    expect(chat.stdout()).toMatch(/^tracker__create_issue \(asks you first\) — Creates an issue\.$/m);
    expect(chat.stdout()).toMatch(/^tracker__search_issues — Searches issues/m);
    expect(chat.stdout()).toMatch(/^load_file — /m);
    expect(toolNames(fake.requests[0]!)).toEqual(expect.arrayContaining(['load_file', 'tracker__search_issues', 'tracker__get_issue', 'tracker__create_issue']));
    expect(toolResults(fake.requests[1]!).join('\n')).toContain('Login page times out');
    expect(trackerCalls()).toEqual([{ tool: 'search_issues', args: { query: 'login' } }]);
    expect(chat.stderr()).not.toMatch(/Allow it\?/);
  }, 180_000);

  it('asks y/n on the terminal’s prompt before a call that needs approval: y runs it, n does not', async () => {
    fake.enqueue(
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Login times out on Safari' } }] },
      { text: 'Filed PROJ-4.' },
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Dark mode is too dark' } }] },
      { text: 'I did not file it.' },
    );
    const chat = spawnChat([], environment, { silent: true });
    chat.write('File an issue: login times out on Safari.\n');
    await chat.waitFor('stderr', /threadwise wants to run create_issue on tracker with\n {2}\{\n {4}"title": "Login times out on Safari"\n {2}\}\nAllow it\? \[y\/N\] /);
    chat.write('y\n');
    await chat.waitFor('stdout', /Filed PROJ-4\./);

    chat.write('And one for dark mode.\n');
    await chat.waitFor('stderr', /"title": "Dark mode is too dark"[^]*Allow it\? \[y\/N\] /);
    chat.write('n\n');
    await chat.waitFor('stdout', /I did not file it\./);
    chat.endInput();
    const { code } = await chat.exited;

    expect(code, chat.stderr()).toBe(0);
    expect(trackerCalls()).toEqual([{ tool: 'create_issue', args: { title: 'Login times out on Safari' } }]);
    expect(toolResults(fake.requests[1]!).join('\n')).toContain('Created PROJ-4');
    expect(toolResults(fake.requests[3]!).at(-1)).toMatch(/denied this call to tracker__create_issue at the terminal, so it was not run/);
  }, 180_000);

  it('does not run such a call for a one-shot question without a terminal, and says approval needs the interactive chat', async () => {
    fake.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Export drops accents' } }] }, { text: 'I could not file it from here.' });
    const chat = spawnChat(['--json', 'File an issue: export drops accents.'], environment, { silent: true });
    const { code } = await chat.exited;

    expect(code, chat.stderr()).toBe(0);
    expect(chat.ownStderr()).toContain(
      'threadwise: tracker__create_issue needs your approval, which only the interactive chat can ask for (npm run chat without a question); it was not run.',
    );
    const run = JSON.parse(chat.stdout());
    expect(run).toMatchObject({ status: 'done', answer: 'I could not file it from here.', toolCalls: [{ name: 'tracker__create_issue', error: expect.any(String) }] });
    expect(toolResults(fake.requests[1]!).join('\n')).toMatch(/approval can only be given in the interactive chat/);
    expect(trackerCalls()).toEqual([]);
  }, 180_000);
});
