/** Line numbers for the locations of plain text ("lines 120–164") and sheet rows. */

/** 1-based line number of an offset. Chunks arrive in order, so it walks from the last answer instead of from 0. */
export function createLineLocator(text: string): (offset: number) => number {
  let offset = 0;
  let line = 1;
  const newlinesBetween = (from: number, to: number) => {
    let count = 0;
    for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count += 1;
    return count;
  };
  return (target) => {
    line += target >= offset ? newlinesBetween(offset, target) : -newlinesBetween(target, offset);
    offset = target;
    return line;
  };
}
