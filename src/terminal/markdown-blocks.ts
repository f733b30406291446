/**
 * Streamed markdown, cut into blocks that are complete: a block ends at a blank line outside a code fence, once the
 * next line has begun and is not indented (an indented line after a blank one still belongs to the list item or
 * code above it). Each complete block can be rendered and printed while the model is still writing the rest.
 */
export interface MarkdownBlocks {
  /** Adds streamed text; returns the blocks it completed, in order. */
  push(delta: string): string[];
  /** Whatever is left, as the last block (the answer is over, or a preamble ended before tool calls). */
  flush(): string;
  /** Drops what is not yet complete (its model call is being retried). */
  discard(): void;
}

const FENCE = /^ {0,3}(```|~~~)/;

export function createMarkdownBlocks(): MarkdownBlocks {
  let pending = '';

  const nextCut = (): number => {
    let inFence = false;
    let sawText = false;
    let blankAt = -1; // offset just past the blank line that may end the block
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; start = end + 1, end = pending.indexOf('\n', start)) {
      const line = pending.slice(start, end);
      if (blankAt >= 0) {
        if (line.trim() === '') continue;
        if (!/^\s/.test(line)) return blankAt;
        blankAt = -1;
      }
      if (FENCE.test(line)) inFence = !inFence;
      if (line.trim() === '') {
        if (!inFence && sawText) blankAt = end + 1;
      } else {
        sawText = true;
      }
    }
    // A line that has begun after the blank one decides too, before its newline arrives.
    const partial = pending.slice(start);
    if (blankAt >= 0 && partial.length > 0 && !/^\s/.test(partial)) return blankAt;
    return -1;
  };

  return {
    push(delta) {
      pending += delta;
      const blocks: string[] = [];
      for (let cut = nextCut(); cut >= 0; cut = nextCut()) {
        const block = pending.slice(0, cut).trimEnd();
        pending = pending.slice(cut).replace(/^(\s*\n)+/, '');
        if (block.trim()) blocks.push(block);
      }
      return blocks;
    },
    flush() {
      const rest = pending.trimEnd();
      pending = '';
      return rest.trim() ? rest : '';
    },
    discard() {
      pending = '';
    },
  };
}
