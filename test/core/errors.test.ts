import { describe, expect, it } from 'vitest';
import { asError, causesOf, codeOf, errorCode, findCause, messageOf, slackErrorCode, ThreadwiseError } from '../../src/core/errors';
import { ModelError } from '../../src/core/chat';
import { FileReadError, UnknownFileError } from '../../src/core/thread-file';
import { McpToolFailure } from '../../src/mcp/failures';
import { ConnectTimeoutError } from '../../src/mcp/open-client';
import { SkillLoadError, SkillReadError } from '../../src/skills/skill-errors';
import { ChatUsageError } from '../../src/terminal/chat-args';
import { LocalFileError } from '../../src/terminal/local-file';
import { DataDirInUseError } from '../../src/app/database/data-dir-lock';
import { StartupError } from '../../src/app/startup-error';
import { DeadlineReached } from '../../src/agent/run-agent-turn';
import { QuestionNotRecorded } from '../../src/slack/ask-on-behalf';
import { FileDownloadError } from '../../src/slack/files/file-download-error';
import { BodyTooLargeError } from '../../src/slack/files/read-capped-body';
import { RunInterrupted } from '../../src/runs/run-interrupted';

describe('messageOf', () => {
  it('is the message of an Error and of a ThreadwiseError', () => {
    expect(messageOf(new Error('disk full'))).toBe('disk full');
    expect(messageOf(new TypeError('not a function'))).toBe('not a function');
    expect(messageOf(new ThreadwiseError('some_code', 'Share the file again.'))).toBe('Share the file again.');
  });

  it('is a thrown string itself', () => {
    expect(messageOf('socket hang up')).toBe('socket hang up');
    expect(messageOf('')).toBe('');
  });

  it('is the message of an error-shaped object (from another realm or thread), else the value as text', () => {
    expect(messageOf({ message: 'from a worker', name: 'Error' })).toBe('from a worker');
    expect(messageOf({ status: 500 })).toBe('[object Object]');
    expect(messageOf({ message: 42 })).toBe('[object Object]');
    expect(messageOf(Object.create(null))).toBe('[object Object]');
  });

  it('names null, undefined and numbers', () => {
    expect(messageOf(null)).toBe('null');
    expect(messageOf(undefined)).toBe('undefined');
    expect(messageOf(404)).toBe('404');
  });
});

describe('asError', () => {
  it('keeps an Error and wraps anything else', () => {
    const error = new Error('kept');
    expect(asError(error)).toBe(error);
    const wrapped = asError('plain');
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toBe('plain');
  });
});

describe('codeOf, errorCode, slackErrorCode', () => {
  it('reads a string code and nothing else', () => {
    expect(codeOf(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(codeOf(new ThreadwiseError('unknown_file', 'x'))).toBe('unknown_file');
    expect(codeOf({ code: -32001 })).toBeUndefined();
    expect(codeOf('ENOENT')).toBeUndefined();
    expect(codeOf(null)).toBeUndefined();
  });

  it('errorCode is the code of threadwise errors only', () => {
    expect(errorCode(new ThreadwiseError('unknown_file', 'x'))).toBe('unknown_file');
    expect(errorCode(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBeUndefined();
  });

  it("slackErrorCode reads a Web API error's data.error", () => {
    expect(slackErrorCode(Object.assign(new Error('An API error occurred: not_in_channel'), { data: { ok: false, error: 'not_in_channel' } }))).toBe('not_in_channel');
    expect(slackErrorCode(new Error('no data'))).toBeUndefined();
    expect(slackErrorCode({ data: { error: 7 } })).toBeUndefined();
    expect(slackErrorCode(undefined)).toBeUndefined();
    expect(slackErrorCode(null)).toBeUndefined();
  });
});

describe('causesOf and findCause', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const wrapped = new Error('fetch failed', { cause: new Error('driver', { cause: refused }) });

  it('lists the error and its causes, outermost first', () => {
    expect(causesOf(wrapped).map(messageOf)).toEqual(['fetch failed', 'driver', 'connect ECONNREFUSED 127.0.0.1:5432']);
    expect(causesOf(refused)).toEqual([refused]);
    expect(causesOf('just a string')).toEqual(['just a string']);
    expect(causesOf(undefined)).toEqual([]);
    expect(causesOf(null)).toEqual([]);
  });

  it('follows a cause that is not an Error, and stops there', () => {
    const error = new Error('outer', { cause: { code: '23505' } });
    expect(causesOf(error)).toHaveLength(2);
    expect(causesOf(error).map(codeOf)).toEqual([undefined, '23505']);
  });

  it('is guarded against cycles and endless chains', () => {
    const a: { cause?: unknown; name: string } = { name: 'a' };
    const b = { name: 'b', cause: a };
    a.cause = b;
    expect(causesOf(a)).toEqual([a, b]);
    const self = new Error('self');
    (self as { cause?: unknown }).cause = self;
    expect(causesOf(self)).toEqual([self]);
    let long: unknown = new Error('root');
    for (let i = 0; i < 1000; i++) long = new Error(`level ${i}`, { cause: long });
    expect(causesOf(long).length).toBeLessThanOrEqual(32);
  });

  it('walks another link when told (Slack keeps it in `original`)', () => {
    const slack = Object.assign(new Error('A request error occurred'), { code: 'slack_webapi_request_error', original: refused });
    expect(causesOf(slack)).toEqual([slack]);
    expect(causesOf(slack, (e) => (e as { original?: unknown }).original).map(codeOf)).toEqual(['slack_webapi_request_error', 'ECONNREFUSED']);
  });

  it('findCause finds the first match, narrowed by a type guard', () => {
    const failure = new McpToolFailure('mcp_timeout', 'The server did not answer.', 'jira', 'search', { cause: refused });
    const outer = new Error('the answer failed', { cause: failure });
    const found = findCause(outer, (cause): cause is McpToolFailure => cause instanceof McpToolFailure);
    expect(found?.server).toBe('jira');
    expect(findCause(outer, (cause) => codeOf(cause) === 'ECONNREFUSED')).toBe(refused);
    expect(findCause(outer, (cause) => codeOf(cause) === 'EPIPE')).toBeUndefined();
  });
});

describe('every error class is a ThreadwiseError with a stable code', () => {
  const table: Array<[string, Error, string]> = [
    ['ModelError', new ModelError('rate_limited', 'The model is busy.'), 'rate_limited'],
    ['FileReadError', new FileReadError('encrypted', 'report.pdf is protected by a password.'), 'encrypted'],
    ['UnknownFileError', new UnknownFileError('F1', ['F2']), 'unknown_file'],
    ['McpToolFailure', new McpToolFailure('mcp_timeout', 'No answer.', 'jira', 'search'), 'mcp_timeout'],
    ['ConnectTimeoutError', new ConnectTimeoutError('no answer within 10 s'), 'mcp_connect_timeout'],
    ['SkillLoadError', new SkillLoadError('skills', [{ file: 'skills/jira/SKILL.md', message: 'no name' }]), 'skills_invalid'],
    ['SkillReadError', new SkillReadError('outside', 'Refused "../x".'), 'outside'],
    ['ChatUsageError', new ChatUsageError('there is no option --x'), 'chat_usage'],
    ['LocalFileError', new LocalFileError('There is no file at ./x.pdf.'), 'local_file_refused'],
    ['DataDirInUseError', new DataDirInUseError('the embedded database in ./data is open in another process'), 'data_dir_in_use'],
    ['StartupError', new StartupError('could not start'), 'startup_failed'],
    ['DeadlineReached', new DeadlineReached(), 'deadline_reached'],
    ['QuestionNotRecorded', new QuestionNotRecorded({ channelId: 'C1' }, new Error('db down')), 'question_not_recorded'],
    ['FileDownloadError', new FileDownloadError('report.pdf', 'Slack did not answer; try again.', 503), 'download_failed'],
    ['BodyTooLargeError', new BodyTooLargeError(1024), 'body_too_large'],
    ['RunInterrupted', new RunInterrupted('lease_lost'), 'run_interrupted'],
  ];

  it.each(table)('%s', (name, error, code) => {
    expect(error).toBeInstanceOf(ThreadwiseError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(errorCode(error)).toBe(code);
    expect(error.message).not.toBe('');
    expect((error as ThreadwiseError).context).toBeTypeOf('object');
  });

  it('keeps the public fields and sentences callers and people read', () => {
    const download = new FileDownloadError('report.pdf', 'Slack did not answer; try again.', 503, { cause: 'x' });
    expect([download.fileName, download.status, download.cause, download.context]).toEqual(['report.pdf', 503, 'x', { file: 'report.pdf', status: 503 }]);
    const interrupted = new RunInterrupted('cancelled');
    expect([interrupted.kind, interrupted.message, interrupted.context]).toEqual(['cancelled', 'The answer was cancelled.', { kind: 'cancelled' }]);
    expect(new BodyTooLargeError(1024).limitBytes).toBe(1024);
    expect(new BodyTooLargeError(1024).message).toBe('The response body passed 1024 bytes.');
    const notRecorded = new QuestionNotRecorded({ channelId: 'C1' }, 'db down');
    expect([notRecorded.message, notRecorded.cause, notRecorded.context]).toEqual([
      'could not record a question for C1: the database did not answer',
      'db down',
      { channel: 'C1' },
    ]);
    const skills = new SkillLoadError('skills', [
      { file: 'skills/a/SKILL.md', message: 'no name' },
      { file: 'skills/b/SKILL.md', message: 'no description' },
    ]);
    expect(skills.message).toBe('Skills in skills could not be loaded (2 problems):\nskills/a/SKILL.md: no name\nskills/b/SKILL.md: no description');
    expect(skills.context).toEqual({ dir: 'skills', files: ['skills/a/SKILL.md', 'skills/b/SKILL.md'] });
    expect(new SkillReadError('not_found', 'No such file.').code).toBe('not_found');
    expect(new StartupError('x', { cause: 'why' }).cause).toBe('why');
    expect(new ModelError('auth', 'Bad key.').kind).toBe('auth');
  });
});
