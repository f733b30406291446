/** Errors in the log: an expected failure is its message and code, an unexpected one keeps the stack that finds the bug. */
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/chat';
import { createLogger } from '../../src/logging/logger';

function logged(error: unknown): Record<string, any> {
  const lines: string[] = [];
  createLogger({ level: 'debug', write: (line) => lines.push(line) }).warn('it failed', { error });
  return JSON.parse(lines[0]!).error;
}

describe('errors in the log', () => {
  it('an expected HTTP 500 from the model: message, code and status, no stack', () => {
    const error = logged(new ModelError('unavailable', 'The model (gpt-4.1-mini) failed with 500.', { status: 500 }));
    expect(error).toMatchObject({ name: 'ModelError', message: 'The model (gpt-4.1-mini) failed with 500.', code: 'unavailable', status: 500 });
    expect(error).not.toHaveProperty('stack');
  });

  it("an HTTP status error from a client (Slack's statusCode): no stack either", () => {
    const error = logged(Object.assign(new Error('An HTTP protocol error occurred: statusCode = 500'), { code: 'slack_webapi_http_error', statusCode: 500 }));
    expect(error).toMatchObject({ code: 'slack_webapi_http_error', status: 500 });
    expect(error).not.toHaveProperty('stack');
  });

  it('an unexpected error keeps its stack', () => {
    const error = logged(new TypeError("Cannot read properties of undefined (reading 'ts')"));
    expect(error.stack).toMatch(/TypeError: Cannot read properties/);
  });

  it('says what caused an error, in a line', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
    const error = logged(new ModelError('unreachable', 'The model endpoint could not be reached.', { cause: refused }));
    expect(error.cause).toEqual({ name: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:11434', code: 'ECONNREFUSED' });
  });
});
