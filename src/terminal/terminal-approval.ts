/**
 * The terminal's own approver. In Slack a tool call that needs approval parks the run and asks with buttons in the
 * thread; here the person who asked is at the keyboard, so the call waits on the terminal's own prompt for y or n.
 * A one-shot `npm run chat -- "question"` without a terminal to ask on refuses such a call with a sentence saying
 * approval needs the interactive chat. Questions never overlap: calls the model made together are asked in turn.
 */
import { createInterface } from 'node:readline/promises';
import type { ApprovalPrompt, ApproveNow } from '../core/approval';
import type { TerminalStreams } from './terminal-display';

/** Shows `question` and reads one line of answer; undefined when the input ended or `signal` aborted first. */
export type AskLine = (question: string, signal: AbortSignal) => Promise<string | undefined>;

/** Asks with `askLine`, on behalf of `person` (their name is on the decision). */
export function createTerminalApproval(askLine: AskLine, person: string): ApproveNow {
  let queue: Promise<unknown> = Promise.resolve();
  return (prompt, signal) => {
    const asked = queue.then(async () => {
      if (signal.aborted) return { approved: false as const, sentence: `The answer was stopped before ${prompt.tool} was approved, so it was not run.` };
      const answer = await askLine(approvalQuestion(prompt), signal);
      if (answer !== undefined && /^\s*y(es)?\s*$/i.test(answer)) return { approved: true as const, by: person };
      return {
        approved: false as const,
        sentence:
          answer === undefined
            ? `Nobody answered whether ${prompt.tool} may run (the terminal's input ended), so it was not run. Answer without it and say what it would have done.`
            : `${person} denied this call to ${prompt.tool} at the terminal, so it was not run. Answer without it: say what you would have done, and do not ask for the same call again unless they ask you to.`,
      };
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}

/**
 * For one question asked on the command line: on a terminal, asks there; piped or scripted there is nobody to
 * ask, so the call is refused and the person is told how to approve it.
 */
export function createOneShotApproval(io: TerminalStreams & { stdin: NodeJS.ReadStream }, person: string, beforeAsking: () => void): ApproveNow {
  if (io.stdin.isTTY === true && io.stderr.isTTY === true) {
    return createTerminalApproval(async (question, signal) => {
      beforeAsking();
      const readline = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
      try {
        return await readline.question(question, { signal });
      } catch {
        return undefined; // aborted (Ctrl-C), or the input closed
      } finally {
        readline.close();
      }
    }, person);
  }
  return async (prompt) => {
    beforeAsking();
    io.stderr.write(`threadwise: ${prompt.tool} needs your approval, which only the interactive chat can ask for (npm run chat without a question); it was not run.\n`);
    return {
      approved: false,
      sentence: `${prompt.tool} needs the person's approval, and approval can only be given in the interactive chat (\`npm run chat\` without a question), so it was not run. Answer without it, and tell them to ask again in the interactive chat if they want it done.`,
    };
  };
}

/** "threadwise wants to run create_issue on tracker with {…}. Allow it? [y/N] " */
function approvalQuestion(prompt: ApprovalPrompt): string {
  const where = prompt.server ? `${prompt.action} on ${prompt.server}` : prompt.action;
  const args = JSON.stringify(prompt.arguments ?? {}, null, 2) ?? '{}';
  const shown = args.length > 1_500 ? `${args.slice(0, 1_500)}\n  … (${args.length - 1_500} more characters)` : args;
  const warning = prompt.hints?.destructive ? ' The server says this tool may delete or overwrite things.' : '';
  return `threadwise wants to run ${where} with\n${shown.replace(/^/gm, '  ')}\n${warning ? `${warning.trim()}\n` : ''}Allow it? [y/N] `;
}
