/**
 * A run as a person sees it in a terminal. Status goes to stderr: on a terminal one line that changes in place with
 * a spinner (drawn with node:readline's cursor functions), otherwise one line per new status. The answer goes to
 * stdout: on a terminal it appears block by block as the model writes it, each block rendered as markdown once it
 * is complete; piped, it is written once, whole and as plain markdown, when it is done — what a script wants.
 */
import { clearLine, cursorTo } from 'node:readline';
import { styleText } from 'node:util';
import type { AnswerDisplay } from './answer-display';
import { createMarkdownBlocks } from './markdown-blocks';
import { createMarkdownRenderer, type RenderMarkdown } from './markdown';

export interface TerminalStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface TerminalDisplayOptions {
  /** Where a failure sentence goes: the conversation (interactive), or stderr as the process's error (one turn). */
  failTo: 'stdout' | 'stderr';
  /** Show the answer? Off for `--json`, which prints the run instead. */
  answer?: boolean;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPIN_MS = 80;

export function createTerminalDisplay(streams: TerminalStreams, options: TerminalDisplayOptions): AnswerDisplay {
  const { stdout, stderr } = streams;
  const liveAnswer = stdout.isTTY === true && options.answer !== false;
  const liveStatus = stderr.isTTY === true;
  const colours = { out: stdout.isTTY === true && stdout.hasColors(), err: stderr.isTTY === true && stderr.hasColors() };
  const render: RenderMarkdown = liveAnswer ? createMarkdownRenderer({ width: Math.min(Math.max((stdout.columns ?? 80) - 2, 40), 120) }) : (text) => text;
  const blocks = createMarkdownBlocks();
  const dim = (stream: 'out' | 'err', text: string) => (colours[stream] ? styleText('dim', text) : text);

  let status: string | undefined;
  let statusShown = false;
  let spinner: NodeJS.Timeout | undefined;
  let frame = 0;
  let lastStatusLine: string | undefined;
  let printedBlocks = 0;
  let streamed = ''; // raw text received and not discarded
  let printedSinceBreak = false;

  const drawStatus = () => {
    if (!status) return;
    clearLine(stderr, 0);
    cursorTo(stderr, 0);
    stderr.write(dim('err', `${SPINNER[frame % SPINNER.length]} ${status}`));
    statusShown = true;
  };

  const hideStatus = () => {
    if (!statusShown) return;
    clearLine(stderr, 0);
    cursorTo(stderr, 0);
    statusShown = false;
  };

  const stopSpinner = () => {
    if (spinner) clearInterval(spinner);
    spinner = undefined;
  };

  const printBlock = (block: string) => {
    hideStatus();
    stdout.write(`${printedBlocks > 0 ? '\n' : ''}${render(block)}\n`);
    printedBlocks += 1;
    printedSinceBreak = true;
    if (status && liveStatus) drawStatus();
  };

  const printNote = (note: string) => {
    hideStatus();
    stdout.write(`${printedBlocks > 0 ? '\n' : ''}${dim('out', plain(note))}\n`);
    printedBlocks += 1;
  };

  const clearStatus = () => {
    status = undefined;
    stopSpinner();
    hideStatus();
  };

  return {
    status(text) {
      if (text === status) return;
      status = text;
      if (liveStatus) {
        drawStatus();
        spinner ??= setInterval(() => {
          frame += 1;
          drawStatus();
        }, SPIN_MS).unref();
      } else if (text !== lastStatusLine) {
        stderr.write(`${text}\n`);
        lastStatusLine = text;
      }
    },
    clearStatus,
    append(delta) {
      streamed += delta;
      if (!liveAnswer) return;
      for (const block of blocks.push(delta)) printBlock(block);
    },
    breakParagraph() {
      if (streamed && !streamed.endsWith('\n\n')) streamed += '\n\n';
      if (liveAnswer) {
        const rest = blocks.flush();
        if (rest) printBlock(rest);
      }
      printedSinceBreak = false;
    },
    discardSinceBreak() {
      const at = streamed.lastIndexOf('\n\n');
      streamed = at >= 0 ? streamed.slice(0, at + 2) : '';
      blocks.discard();
      if (liveAnswer && printedSinceBreak) printNote('(The connection to the model broke; it is writing that part again.)');
      printedSinceBreak = false;
    },
    finish(answer, note) {
      clearStatus();
      if (options.answer === false) return;
      if (!liveAnswer) {
        stdout.write(`${answer}${note ? `\n\n_${note}_` : ''}\n`);
        return;
      }
      if (streamed.trim() && answer.trim() === streamed.trim()) {
        const rest = blocks.flush();
        if (rest) printBlock(rest);
      } else {
        // Nothing streamed, or the answer is not what streamed (it came from a call that did not stream): show it whole.
        blocks.discard();
        printBlock(answer);
      }
      if (note) printNote(note);
    },
    wroteFile(path) {
      // On stderr with the status lines: stdout stays the answer (and `--json`'s one document).
      hideStatus();
      stderr.write(`${dim('err', 'wrote')} ${path}\n`);
      if (status && liveStatus) drawStatus();
    },
    fail(sentence) {
      clearStatus();
      blocks.discard();
      if (options.failTo === 'stderr') {
        stderr.write(`threadwise: ${plain(sentence)}\n`);
        return;
      }
      if (options.answer === false) return;
      printNote(sentence);
    },
  };
}

/** A sentence the run wrote as markdown ("_Stopped: …_"), for a line of plain text. */
function plain(sentence: string): string {
  return sentence.replace(/^_(.*)_$/s, '$1');
}
