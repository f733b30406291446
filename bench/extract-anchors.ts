/**
 * The outside tools the extraction figures are compared with, run over the same files in the same run:
 * pdftotext (poppler) for PDFs and pandoc for DOCX, one file at a time as a user would run them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { timeChildren, type Timing } from './extract-timing';

const run = promisify(execFile);

export interface Anchor {
  tool: string;
  /** Whether the tool is installed; without it the ratio figure is null with a note. */
  available: boolean;
  /** Time to convert every file, `parallel` at a time. Failures (encrypted, truncated) count like ours do. */
  measure(paths: string[], parallel?: number): Promise<Timing>;
}

export const pdftotext = anchorFor('pdftotext', ['-v'], (path) => ['-q', '-enc', 'UTF-8', path, '-']);
// Markdown output, because that is what our DOCX reader produces too (tables included).
export const pandoc = anchorFor('pandoc', ['--version'], (path) => ['-f', 'docx', '-t', 'gfm', path]);

function anchorFor(tool: string, probe: string[], argsFor: (path: string) => string[]): Anchor {
  const available = !spawnSync(tool, probe, { stdio: 'ignore' }).error;
  return {
    tool,
    available,
    measure(paths, parallel = 1) {
      const queue = [...paths];
      const lane = async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          await run(tool, argsFor(path), { maxBuffer: 256 * 1024 * 1024 }).catch(() => {});
        }
      };
      return timeChildren(() => Promise.all(Array.from({ length: parallel }, lane)));
    },
  };
}
