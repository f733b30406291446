/**
 * The outside tools the extraction figures are compared with, run over the same files in the same run:
 * pdftotext (poppler) for PDFs and pandoc for DOCX, one file at a time as a user would run them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Anchor {
  tool: string;
  /** Whether the tool is installed; without it the ratio figure is null with a note. */
  available: boolean;
  /** Wall seconds to convert every file, `parallel` at a time. Failures (encrypted, truncated) count like ours do. */
  measure(paths: string[], parallel?: number): Promise<number>;
}

export const pdftotext = anchorFor('pdftotext', ['-v'], (path) => ['-q', '-enc', 'UTF-8', path, '-']);
// Markdown output, because that is what our DOCX reader produces too (tables included).
export const pandoc = anchorFor('pandoc', ['--version'], (path) => ['-f', 'docx', '-t', 'gfm', path]);

function anchorFor(tool: string, probe: string[], argsFor: (path: string) => string[]): Anchor {
  const available = !spawnSync(tool, probe, { stdio: 'ignore' }).error;
  return {
    tool,
    available,
    async measure(paths, parallel = 1) {
      const queue = [...paths];
      const started = performance.now();
      const lane = async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          await run(tool, argsFor(path), { maxBuffer: 256 * 1024 * 1024 }).catch(() => {});
        }
      };
      await Promise.all(Array.from({ length: parallel }, lane));
      return (performance.now() - started) / 1000;
    },
  };
}
