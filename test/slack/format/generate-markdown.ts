/**
 * Seeded random markdown of the kinds that break splitters: long words, huge code blocks, CJK without spaces, emoji
 * made of several code points, tables, Windows newlines, unclosed fences. Same seed, same text: a failure names its seed.
 */

import { seededRandom, type Random } from '../../support/seeded-random';

export { seededRandom, type Random };

export interface MarkdownShape {
  fences?: boolean;
  tables?: boolean;
  longWords?: boolean;
  cjk?: boolean;
  emoji?: boolean;
  crlf?: boolean;
}

const WORDS = ['the', 'deploy', 'failed', 'because', 'a', 'config', 'value', 'was', 'missing', 'see', 'logs', 'retry', 'with', 'backoff', 'token', 'thread', 'answer', 'file', 'report.pdf', "don't", 'e.g.', '42', '3.14', '**bold**', '_it_', '`npm ci`', '(maybe)', 'über', 'naïve'];
const ENDINGS = ['.', '.', '!', '?', ':', ''];
const CJK = '日本語のテキストを分割します今日は良い天気です明日も晴れるでしょう中文文本没有空格한국어텍스트';
const CJK_PUNCTUATION = ['。', '、', '！', '？'];
/** Several code points each: ZWJ families, skin tones, flags, keycaps, variation selectors, a combining accent. */
const EMOJI = ['😀', '👩‍👩‍👧‍👦', '👍🏽', '🇯🇵', '🇺🇸', '1️⃣', '❤️', '🏳️‍🌈', 'e\u0301', '🧑🏿‍💻'];
const LANGUAGES = ['', 'ts', 'python', 'sql', 'typescript', 'json'];

export function generateMarkdown(random: Random, shape: MarkdownShape = {}): string {
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const repeat = (n: number, make: () => string) => Array.from({ length: n }, make);

  const longWord = () => repeat(int(30, 700), () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789-_/'])).join('');
  const emojiRun = () => repeat(int(1, 120), () => pick(EMOJI)).join('');
  const cjkRun = () => repeat(int(10, 900), () => (random() < 0.06 ? pick(CJK_PUNCTUATION) : pick([...CJK]))).join('');
  const word = () => {
    const r = random();
    if (shape.longWords && r < 0.03) return longWord();
    if (shape.emoji && r < 0.08) return emojiRun();
    if (shape.cjk && r < 0.1) return cjkRun();
    return pick(WORDS);
  };
  const sentence = () => repeat(int(3, 20), word).join(' ') + pick(ENDINGS);
  const paragraph = () => repeat(int(1, 6), sentence).join(' ');
  const list = () => repeat(int(2, 8), () => `${random() < 0.3 ? '  ' : ''}${random() < 0.5 ? '-' : '1.'} ${sentence()}`).join('\n');
  const fence = (closed: boolean) => {
    const marker = pick(['```', '```', '~~~', '````']);
    const lines = repeat(int(1, random() < 0.1 ? 400 : 25), () => {
      const r = random();
      if (r < 0.1) return '';
      if (r < 0.13) return repeat(int(100, 3000), () => pick([...'x0{}();=<>&'])).join('');
      if (shape.emoji && r < 0.16) return `print("${emojiRun()}")`;
      return `${' '.repeat(int(0, 3) * 2)}${repeat(int(1, 10), () => pick(['const', 'x', '=', 'fetch(url)', '<T>', '&&', 'if', '{', '}', 'return', '"@here"'])).join(' ')}`;
    });
    return [`${marker}${pick(LANGUAGES)}`, ...lines, ...(closed ? [marker] : [])].join('\n');
  };
  const table = () => {
    const columns = int(2, 4);
    const row = () => `| ${repeat(columns, () => repeat(int(1, 3), word).join(' ')).join(' | ')} |`;
    return [row(), `|${repeat(columns, () => '---').join('|')}|`, ...repeat(int(1, 40), row)].join('\n');
  };

  const blocks = repeat(int(1, 30), () => {
    const r = random();
    if (shape.fences && r < 0.2) return fence(true);
    if (shape.tables && r < 0.3) return table();
    if (r < 0.4) return list();
    if (r < 0.5) return `${'#'.repeat(int(1, 3))} ${sentence()}`;
    return paragraph();
  });
  if (shape.fences && random() < 0.1) blocks.push(fence(false));
  let text = blocks.map((block, i) => (i === 0 ? '' : random() < 0.8 ? '\n\n' : '\n') + block).join('');
  if (shape.crlf) text = text.replace(/\n/g, () => (random() < 0.7 ? '\r\n' : '\n'));
  return text;
}
