/** Logs carry no message text unless LOG_MESSAGE_TEXT says so: debug payloads from Bolt and the Web API included. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger';

const boltDebugLine = 'http request body: {"channel":"C0GENERAL","text":"our Q3 numbers are \\"bad\\"","thread_ts":"1700000000.000100"}';

function capture(messageText?: boolean) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => lines.push(line), ...(messageText === undefined ? {} : { messageText }) });
  return { lines, logger };
}

describe('message text in logs', () => {
  it('is redacted by default, in fields and in payloads quoted inside a message', () => {
    const { lines, logger } = capture();
    logger.debug(boltDebugLine, { component: 'web-api' });
    logger.info('event', { event: { type: 'message', text: 'salary of Ana is 100k', user: 'U0ANA', files: [{ id: 'F1', title: 'payroll.xlsx', preview: 'Ana 100000' }] } });
    const out = lines.join('\n');
    expect(out).not.toMatch(/Q3 numbers|salary|payroll\.xlsx|Ana 100000/);
    expect(out).toContain('C0GENERAL');
    expect(out).toContain('U0ANA');
    expect(out.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(4);
  });

  it('is kept with LOG_MESSAGE_TEXT=true', () => {
    const { lines, logger } = capture(true);
    logger.debug(boltDebugLine);
    expect(lines.join('\n')).toContain('our Q3 numbers');
  });
});

describe('OAuth values in logs (per-person sign-in)', () => {
  it('redacts a sign-in link’s state and code, and token fields, wherever a line carries them', () => {
    const { lines, logger } = capture();
    const state = 'n0tAn0therPers0nsState_-abcdefghijklmnopqrstu';
    logger.debug(`http request body: {"channel":"C0GENERAL","blocks":[{"type":"actions","elements":[{"url":"https://as.example/authorize?response_type=code&client_id=c1&state=${state}&code_challenge=x"}]}]}`);
    logger.info('landed', { url: 'https://threadwise.example/oauth/callback?code=code-123456&state=abcdef123456' });
    logger.debug('token response', { body: { access_token: 'at-ana-0123456789', refresh_token: 'rt-ana-0123456789', expires_in: 3600 } });
    const out = lines.join('\n');
    expect(out).not.toMatch(new RegExp(`${state}|code-123456|abcdef123456|at-ana-0123456789|rt-ana-0123456789`));
    expect(out).toContain('client_id=c1');
    expect(out).toContain('"expires_in":3600');
  });
});
