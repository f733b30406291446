/**
 * `npm run chat -- [--file PATH]… [--json] ["question"]`: threadwise in a terminal, without Slack. Needs only the
 * model's variables. Every problem before the conversation starts — a bad option, a missing variable, a file that
 * is not there or cannot be read — is one sentence on stderr and a non-zero exit, never a stack trace.
 *
 * Run as `exec node --import tsx src/chat.ts` (package.json): this process itself receives Ctrl-C and SIGTERM, with
 * no shell or tsx wrapper in between.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { loadMcpServers } from './app/compose';
import { openLocalThreadwise } from './app/local';
import { StartupError } from './app/startup-error';
import { loadEnvFile, loadLocalConfig } from './config';
import { createLogger, type Logger } from './logging/logger';
import { answerOnce, converse, type ChatInterrupts } from './terminal/chat';
import { CHAT_USAGE, ChatUsageError, parseChatArgs } from './terminal/chat-args';
import { describeLocalFile, LocalFileError, type LocalFile } from './terminal/local-file';
import { messageOf } from './core/errors';
import { deferWasmOptimisationDuringStart } from './runtime/wasm-tiering';

// Before the embedded database's WebAssembly is compiled (runtime/wasm-tiering.ts says why).
const startIsOver = deferWasmOptimisationDuringStart();

/** How long closing may take after the last answer before the process leaves anyway. */
const CLOSE_TIMEOUT_MS = 10_000;

const stderr = process.stderr;
function quit(code: number, sentence?: string): never {
  if (sentence) stderr.write(`threadwise: ${sentence}\n`);
  process.exit(code);
}

// Ctrl-C and SIGTERM go to whatever is running now; before anything runs, they simply end the process.
const handlers = { interrupt: [] as Array<() => void>, terminate: [] as Array<() => void> };
process.on('SIGINT', () => (handlers.interrupt.length ? handlers.interrupt.forEach((handle) => handle()) : quit(130)));
process.on('SIGTERM', () => (handlers.terminate.length ? handlers.terminate.forEach((handle) => handle()) : quit(143)));
const interrupts: ChatInterrupts = {
  onInterrupt: (handler) => void handlers.interrupt.push(handler),
  onTerminate: (handler) => void handlers.terminate.push(handler),
};

let args;
try {
  args = parseChatArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ChatUsageError)) throw error;
  quit(2, error.message);
}
if (args.help) {
  process.stdout.write(`${CHAT_USAGE}\n`);
  process.exit(0);
}

// .env in the project folder (npm's working directory), as for `npm start`; the environment wins over it.
const envFile = loadEnvFile();
if (!envFile.ok) quit(1, envFile.problem);
const loaded = loadLocalConfig(process.env);
if (!loaded.ok) {
  for (const problem of loaded.problems) stderr.write(`threadwise: ${problem}\n`);
  process.exit(1);
}
const config = loaded.config;

// npm runs scripts in the project folder; a path is meant from where the person typed the command.
const cwd = process.env.INIT_CWD ?? process.cwd();
const files: LocalFile[] = [];
for (const given of args.files) {
  try {
    files.push(await describeLocalFile(given, { cwd, maxFileBytes: config.files.maxFileBytes }));
  } catch (error) {
    if (!(error instanceof LocalFileError)) throw error;
    quit(1, error.message);
  }
}

// Read before the log is opened, so header and env values from mcp.json are redacted like the API key.
let mcpServers;
try {
  mcpServers = await loadMcpServers(config, process.env);
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  quit(1, error.message);
}
const logFile = path.resolve(config.storage.dataDir, 'logs', 'chat.log');
const logger = openLogFile(logFile, [config.model.apiKey, ...mcpServers.secrets]);
process.on('uncaughtException', (error) => {
  logger.error('unexpected error', { error });
  quit(1, `something went wrong: ${error.message} (details in ${logFile})`);
});
process.on('unhandledRejection', (error) => {
  logger.error('unexpected error', { error });
  quit(1, `something went wrong: ${messageOf(error)} (details in ${logFile})`);
});

let agent;
try {
  agent = await openLocalThreadwise(config, { logger, mcpServers, watchSkills: !args.question });
} catch (error) {
  if (!(error instanceof StartupError)) throw error;
  quit(1, error.message);
}
startIsOver();

const io = { stdin: process.stdin, stdout: process.stdout, stderr, cwd, userName: currentUserName() };
let code = 1;
try {
  code = args.question
    ? await answerOnce(agent, { ...args, question: args.question }, files, io, interrupts)
    : await converse(agent, args, files, io, interrupts);
} finally {
  setTimeout(() => quit(code), CLOSE_TIMEOUT_MS).unref();
  await agent.close().catch((error) => logger.warn('closing failed', { error }));
}
process.exit(code);

/** The terminal's log goes to a file: JSON lines on the screen would bury the conversation. */
function openLogFile(file: string, secrets: string[]): Logger {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    appendFileSync(file, '');
  } catch {
    return createLogger({ level: 'error', secrets });
  }
  return createLogger({ level: config.logLevel, secrets, write: (line) => appendFileSync(file, line) });
}

function currentUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'you';
  }
}
