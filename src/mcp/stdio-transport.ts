/**
 * stdio to a local MCP server, with the SDK's own message framing (ReadBuffer, serializeMessage) but a process of
 * our own making: the server starts in a process group of its own, so closing ends the whole tree. `npx -y pkg`
 * is npm, then a shell, then node; the SDK's transport signals only the first, and the real server lives on after
 * threadwise stops. stderr is kept (its last lines explain a crash) and handed to the caller line by line instead of
 * being written through to ours, where tokens a server prints would bypass the log redactor.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { asError, codeOf } from '../core/errors';

export interface StdioServerProcess {
  command: string;
  args: string[];
  /** Added to a minimal inherited environment (HOME, PATH, USER…, as the SDK chooses) — never our whole one. */
  env: Record<string, string>;
  cwd?: string;
  /** Each line the server writes to stderr. */
  onStderrLine?: (line: string) => void;
  /** How long each step of closing waits (stdin closed, then SIGTERM, then SIGKILL). Default 2 s. */
  closeGraceMs?: number;
}

const STDERR_TAIL_LINES = 20;
const MAX_STDERR_LINE = 2_000;

export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer();
  private readonly stderrTail: string[] = [];
  private exit?: { code: number | null; signal: NodeJS.Signals | null };
  private exited?: Promise<void>;
  private closed = false;

  constructor(private readonly server: StdioServerProcess) {}

  /** The server process's id (and its process group's), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** "exited with code 1: Error: GITHUB_TOKEN is not set", or undefined while it runs. */
  describeExit(): string | undefined {
    if (!this.exit) return undefined;
    const how = this.exit.signal ? `was stopped by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
    const last = this.stderrTail.at(-1);
    return last ? `${how}: ${last}` : how;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessGroupStdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        cwd: this.server.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // A process group of its own (POSIX): the whole tree can then be signalled at once.
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      let started = false;
      child.once('spawn', () => {
        started = true;
        resolve();
      });
      child.on('error', (error) => {
        if (!started) reject(error);
        else this.onerror?.(error);
      });
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.once('close', () => {
        if (started) this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
            this.onmessage?.(message);
          }
        } catch (error) {
          this.onerror?.(asError(error));
        }
      });
      this.readStderr(child);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || this.exit) return reject(new McpError(ErrorCode.ConnectionClosed, 'the server process is not running'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the whole process tree: stdin closed (the polite way), then SIGTERM to the group, then SIGKILL. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    if (!child?.pid) return;
    const grace = this.server.closeGraceMs ?? 2_000;
    try {
      child.stdin?.end();
    } catch {
      // already gone
    }
    await this.waitForExit(grace);
    // Even when the server itself left, children it started may not have: the group is signalled either way.
    if (this.signalTree(child.pid, 'SIGTERM')) {
      await this.waitForTreeGone(child.pid, grace);
      if (this.signalTree(child.pid, 'SIGKILL')) await this.waitForTreeGone(child.pid, grace);
    }
    await this.waitForExit(grace);
    this.buffer.clear();
  }

  private readStderr(child: ChildProcess): void {
    let partial = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split(/\r?\n/);
      partial = lines.pop() ?? '';
      if (partial.length > MAX_STDERR_LINE) {
        lines.push(partial);
        partial = '';
      }
      for (const raw of lines) {
        const line = raw.length > MAX_STDERR_LINE ? `${raw.slice(0, MAX_STDERR_LINE)}…` : raw;
        if (!line.trim()) continue;
        this.stderrTail.push(line);
        if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
        this.server.onStderrLine?.(line);
      }
    });
  }

  private async waitForExit(ms: number): Promise<void> {
    if (!this.exited) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** Whether anything was left to signal. */
  private signalTree(pid: number, signal: NodeJS.Signals): boolean {
    try {
      if (process.platform === 'win32') {
        if (this.exit) return false;
        spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => {});
        return true;
      }
      process.kill(-pid, signal);
      return true;
    } catch {
      return false; // ESRCH: the group is empty
    }
  }

  private async waitForTreeGone(pid: number, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (process.platform === 'win32' ? this.exit : !(await groupAlive(pid))) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * Whether any process of the group still runs. On Linux /proc tells zombies apart — an orphan whose new parent
 * never reaps it is dead for our purposes; elsewhere the group answering a null signal is the best there is.
 */
async function groupAlive(pgid: number): Promise<boolean> {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if (codeOf(error) !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so read after the last ")".
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
    }
    return false;
  } catch {
    return true;
  }
}
