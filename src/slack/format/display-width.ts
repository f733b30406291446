const ZERO_WIDTH = /[\p{M}\u200b-\u200d\u2060\ufe00-\ufe0f]/u;
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\p{Extended_Pictographic}\u{20000}-\u{3fffd}]/u;

/** Columns a string takes in a monospaced font: CJK and emoji take two, combining marks none. Good enough to align. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}
