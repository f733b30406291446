/**
 * `npm run chat`: one question answered (with a question), or a conversation (without one) — the same agent as in
 * Slack, with this terminal as the thread. Conversations keep their history (one stored thread), take files
 * mid-way (`/file`), and stop an answer on Ctrl-C without leaving. A tool call that needs approval asks y/n on
 * this terminal's prompt (terminal-approval.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { formatBytes } from '../core/format';
import type { ThreadFile } from '../core/thread-file';
import { RunInterrupted } from '../runs/run-interrupted';
import type { ChatArgs } from './chat-args';
import type { AskResult, Conversation, Person } from './local-edge';
import type { LocalAgent } from './local-agent';
import { describeLocalFile, LocalFileError, type LocalFile } from './local-file';
import type { AnswerDisplay } from './answer-display';
import { createOneShotApproval, createTerminalApproval } from './terminal-approval';
import { createTerminalDisplay, type TerminalStreams } from './terminal-display';

/** Where the terminal's threads are stored. */
const TERMINAL_CHANNEL = 'local:terminal';

export interface ChatIO extends TerminalStreams {
  stdin: NodeJS.ReadStream;
  cwd: string;
  /** Who is typing (the OS user name). */
  userName: string;
}

/** Ctrl-C and SIGTERM, as the entry point receives them. */
export interface ChatInterrupts {
  /** Ctrl-C: stop the answer being written, or, with none, leave. */
  onInterrupt(handler: () => void): void;
  /** SIGTERM: stop everything and leave. */
  onTerminate(handler: () => void): void;
}

const PROMPT = '› ';

const COMMANDS_HELP = `Commands:
  /file PATH   add a file to the conversation (PDF, DOCX, PPTX, XLSX, CSV, HTML, text, images)
  /files       list the conversation's files and their ids
  /skills      list the skills threadwise can load
  /tools       list the tools threadwise can use (MCP servers' from mcp.json included)
  /reset       start a new conversation (history and files are left behind)
  /exit        leave (also Ctrl-D; Ctrl-C stops an answer, or leaves when none is being written)`;

/** One turn: the answer (or its JSON) on stdout. Returns the exit code: 0 answered, 1 failed, 130 stopped. */
export async function answerOnce(agent: LocalAgent, args: ChatArgs & { question: string }, files: LocalFile[], io: ChatIO, interrupts: ChatInterrupts): Promise<number> {
  const display = createTerminalDisplay(io, { failTo: 'stderr', answer: !args.json });
  const approveNow = createOneShotApproval(io, personOf(io).name, () => display.clearStatus());
  const conversation = await agent.startConversation(TERMINAL_CHANNEL, { approveNow });
  const controller = new AbortController();
  let terminated = false;
  interrupts.onInterrupt(() => controller.abort(new RunInterrupted('cancelled')));
  interrupts.onTerminate(() => {
    terminated = true;
    controller.abort(new RunInterrupted('cancelled'));
  });
  const result = await conversation.ask({ from: personOf(io), text: args.question, files }, { display, signal: controller.signal });
  if (args.json) io.stdout.write(`${JSON.stringify(await runJson(result, conversation, files), null, 2)}\n`);
  return terminated ? 143 : exitCodeOf(result);
}

/** A conversation over stdin, until /exit, Ctrl-D, end of input, Ctrl-C with no answer running, or SIGTERM. */
export async function converse(agent: LocalAgent, args: ChatArgs, files: LocalFile[], io: ChatIO, interrupts: ChatInterrupts): Promise<number> {
  const interactive = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const person = personOf(io);
  let running: AbortController | undefined;
  let display: AnswerDisplay | undefined;
  let leaving = false;
  let exitCode = 0;

  const say = (text: string) => io.stdout.write(`${text}\n`);
  const tell = (text: string) => io.stderr.write(`${text}\n`);

  const lines: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: interactive, prompt: PROMPT, historySize: 200 });
  rl.on('line', (line) => {
    lines.push(line);
    wake?.();
  });
  rl.on('close', () => {
    ended = true;
    wake?.();
  });
  const nextLine = async (signal?: AbortSignal): Promise<string | undefined> => {
    while (lines.length === 0 && !ended && !leaving && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    wake = undefined;
    return leaving || signal?.aborted ? undefined : lines.shift();
  };
  // Approval is asked on this same prompt: the answer line is the next one typed (or piped).
  const approveNow = createTerminalApproval(async (question, signal) => {
    display?.clearStatus();
    const lastBreak = question.lastIndexOf('\n') + 1;
    io.stderr.write(question.slice(0, lastBreak));
    if (interactive) {
      rl.setPrompt(question.slice(lastBreak));
      rl.prompt();
    } else io.stderr.write(question.slice(lastBreak));
    try {
      return await nextLine(signal);
    } finally {
      rl.setPrompt(PROMPT);
    }
  }, person.name);
  let conversation = await agent.startConversation(TERMINAL_CHANNEL, { approveNow });
  const leave = (code: number) => {
    leaving = true;
    exitCode = code;
    wake?.();
  };
  const interrupt = () => {
    if (running) running.abort(new RunInterrupted('cancelled'));
    else leave(0);
  };
  rl.on('SIGINT', interrupt);
  interrupts.onInterrupt(interrupt);
  interrupts.onTerminate(() => {
    // The answer being written is stopped and recorded as such; nothing of a terminal's run is left to resume.
    running?.abort(new RunInterrupted('cancelled'));
    leave(143);
  });

  const addFiles = async (added: LocalFile[]) => {
    const posted = await conversation.post({ from: person, files: added });
    for (const file of posted.files) say(`Added ${describeFile(file)}; reading it now.`);
  };

  const commands: Record<string, (rest: string) => Promise<void>> = {
    async file(rest) {
      const paths = splitPaths(rest, io.cwd);
      if (paths.length === 0) return void tell('Name a file to add, e.g. /file ./report.pdf');
      const added: LocalFile[] = [];
      for (const given of paths) {
        try {
          added.push(await describeLocalFile(given, { cwd: io.cwd, maxFileBytes: agent.maxFileBytes }));
        } catch (error) {
          if (!(error instanceof LocalFileError)) throw error;
          tell(error.message);
        }
      }
      if (added.length) await addFiles(added);
    },
    async files() {
      const list = await conversation.files();
      say(list.length ? list.map((file) => describeFile(file)).join('\n') : 'No files yet: add one with /file PATH.');
    },
    async skills() {
      const skills = agent.skills();
      say(skills.length ? skills.map((skill) => `${skill.name} — ${skill.description}`).join('\n') : 'No skills are installed (SKILLS_DIR).');
    },
    async tools() {
      say(
        agent
          .tools()
          .map((tool) => `${tool.name}${tool.needsApproval ? ' (asks you first)' : ''} — ${firstSentence(tool.description)}`)
          .join('\n'),
      );
    },
    async reset() {
      conversation = await agent.startConversation(TERMINAL_CHANNEL, { approveNow });
      say('Started a new conversation: earlier messages and files are left behind.');
    },
    async exit() {
      leave(0);
    },
    async quit() {
      leave(0);
    },
    async help() {
      say(COMMANDS_HELP);
    },
  };

  tell(`threadwise · ${agent.modelName} · ${interactive ? 'type a question; /help lists commands, /exit or Ctrl-D leaves' : 'reading questions from standard input'}`);
  if (files.length) await addFiles(files);

  try {
    while (!leaving) {
      if (interactive) rl.prompt();
      const line = await nextLine();
      if (line === undefined) break;
      const text = line.trim();
      if (!text) continue;
      const command = /^\/([a-z]+)(?:\s+(.*))?$/i.exec(text);
      if (command) {
        const run = commands[command[1]!.toLowerCase()];
        if (run) await run(command[2] ?? '');
        else tell(`There is no command /${command[1]}; /help lists them.`);
        continue;
      }
      running = new AbortController();
      display = createTerminalDisplay(io, { failTo: 'stdout', answer: !args.json });
      const result = await conversation.ask({ from: person, text }, { display, signal: running.signal });
      running = undefined;
      display = undefined;
      if (args.json) say(JSON.stringify(await runJson(result, conversation, [])));
      else if (io.stdout.isTTY) say('');
    }
  } finally {
    rl.close();
  }
  return exitCode;
}

/** The run for scripts: answer, tool calls, tokens, and the files with their ids. */
async function runJson(result: AskResult, conversation: Conversation, added: LocalFile[]) {
  const paths = new Map(added.map((file) => [file.object.id, file.path]));
  const files = (await conversation.files()).map((file) => ({
    id: file.id,
    name: file.name,
    type: file.fileType,
    sizeBytes: file.sizeBytes,
    ...(file.pageCount !== undefined ? { pages: file.pageCount } : {}),
    ...(file.slackFileId && paths.has(file.slackFileId) ? { path: paths.get(file.slackFileId) } : {}),
    ...(file.error ? { error: file.error.message } : {}),
  }));
  return { ...result, files };
}

function exitCodeOf(result: AskResult): number {
  return result.status === 'done' ? 0 : result.status === 'cancelled' ? 130 : 1;
}

function personOf(io: ChatIO): Person {
  const name = io.userName.trim() || 'you';
  return { id: `local:${name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}`, name };
}

function firstSentence(text: string): string {
  const sentence = /^[^\n]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text.split('\n')[0]!;
  return sentence.length > 120 ? `${sentence.slice(0, 119)}…` : sentence;
}

function describeFile(file: ThreadFile): string {
  const facts = [file.fileType.toUpperCase() || file.mimeType, formatBytes(file.sizeBytes)];
  if (file.pageCount !== undefined) facts.push(`${file.pageCount} ${file.pageCount === 1 ? 'page' : 'pages'}`);
  return `${file.id} ${file.name} (${facts.join(', ')})${file.error ? ` — ${file.error.message}` : ''}`;
}

/**
 * The paths after /file: the whole rest when it names something (a path with spaces, as typed), else words split
 * the way a shell would ('quoted', "quoted", back\ slashed — what dragging a file into a terminal gives).
 */
function splitPaths(rest: string, cwd: string): string[] {
  const whole = rest.trim();
  if (!whole) return [];
  if (existsSync(path.resolve(cwd, whole))) return [whole];
  const paths: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < whole.length; i++) {
    const char = whole[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === '\\' && i + 1 < whole.length) {
      current += whole[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) paths.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) paths.push(current);
  return paths;
}
