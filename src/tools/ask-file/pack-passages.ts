import type { Passage } from './gather-passages';

/**
 * Groups passages into batches that each fit `tokensPerBatch`, at most `maxBatches`, taking passages in rank order
 * (the best ones are read even when the budget runs out), then putting the passages, and the batches, in document
 * order, which is how people read. A passage larger than a whole batch is cut to fit.
 */
export function packPassages(
  passages: Passage[],
  options: { tokensPerBatch: number; maxBatches: number; countTokens: (text: string) => number },
): { batches: Passage[][]; left: number } {
  const batches: Array<{ passages: Passage[]; tokens: number }> = [];
  let left = 0;
  for (const original of passages) {
    const passage = fitPassage(original, options.tokensPerBatch, options.countTokens);
    const tokens = options.countTokens(passage.text) + 20;
    const open = batches.find((b) => b.tokens + tokens <= options.tokensPerBatch);
    if (open) {
      open.passages.push(passage);
      open.tokens += tokens;
    } else if (batches.length < options.maxBatches) {
      batches.push({ passages: [passage], tokens });
    } else {
      left += 1;
    }
  }
  const ordered = batches.map((b) => b.passages.sort((x, y) => x.start - y.start));
  return { batches: ordered.sort((x, y) => x[0]!.start - y[0]!.start), left };
}

function fitPassage(passage: Passage, budget: number, countTokens: (text: string) => number): Passage {
  const tokens = countTokens(passage.text);
  if (tokens <= budget - 20) return passage;
  const keep = Math.floor((passage.text.length * (budget - 20)) / tokens);
  return { ...passage, text: `${passage.text.slice(0, keep)}…`, end: passage.start + keep };
}
