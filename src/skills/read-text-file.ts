import { readFile, stat } from 'node:fs/promises';
import { SkillReadError } from './skill-errors';

/** A skill file is read into the model's context whole; anything bigger than this is not a playbook. */
const MAX_SKILL_FILE_BYTES = 256 * 1024;

/**
 * Reads a skill file as UTF-8 text. Binary files are refused rather than decoded into replacement characters
 * the model would try to interpret.
 */
export async function readTextFile(file: string, shown: string): Promise<string> {
  const info = await stat(file);
  if (info.isDirectory()) {
    throw new SkillReadError('folder', `"${shown}" is a folder, not a file.`);
  }
  if (info.size > MAX_SKILL_FILE_BYTES) {
    throw new SkillReadError(
      'too_large',
      `"${shown}" is ${info.size} bytes; skill files are served up to ${MAX_SKILL_FILE_BYTES} bytes.`,
    );
  }
  const text = decodeText(await readFile(file));
  if (text === undefined) {
    throw new SkillReadError('not_text', `"${shown}" is not a text file; skills serve UTF-8 text only.`);
  }
  return text;
}

/** The text of a UTF-8 buffer, or undefined when it is binary (NUL bytes) or not valid UTF-8. */
function decodeText(buffer: Uint8Array): string | undefined {
  if (buffer.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buffer).replace(/^\uFEFF/, '');
  } catch {
    return undefined;
  }
}
