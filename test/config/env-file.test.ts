/** .env lines Node's loader would misread are found first, by line number (the file itself: start-up-stages.test.ts). */
import { describe, expect, it } from 'vitest';
import { checkEnvText } from '../../src/config/env-file';

describe('checking a .env file', () => {
  it('accepts comments, blank lines, export, spaces around =, quotes and multi-line quoted values', () => {
    expect(checkEnvText('# settings\n\nPORT=3000\nexport LOG_LEVEL = debug\nA="x # y"\nKEY="-----BEGIN\nabc\n-----END"\nB=\'\'\n')).toBeUndefined();
  });

  it('finds a line without "=" (Node would glue it to the next name)', () => {
    expect(checkEnvText('PORT=3000\nSLACK_BOT_TOKEN xoxb-1\nLOG_LEVEL=info')).toEqual({ line: 2, what: expect.stringMatching(/^is not NAME=value/) });
  });

  it('finds a quote that never closes', () => {
    expect(checkEnvText('PORT=3000\nSECRET="abc\nLOG_LEVEL=info\n')).toEqual({ line: 2, what: 'opens a " quote that is never closed: end the value with "' });
  });
});
