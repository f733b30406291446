import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/chat';
import { FileReadError } from '../../src/core/thread-file';
import { describeFailure } from '../../src/runs/describe-failure';

describe('describeFailure', () => {
  it('says whether asking again will help when the model fails', () => {
    expect(describeFailure(new ModelError('unavailable', 'boom'))).toMatch(/isn’t answering right now .* ask again in a minute/);
    expect(describeFailure(new ModelError('rate_limited', 'slow down'))).toMatch(/rate-limiting .* ask again in a minute/);
    expect(describeFailure(new ModelError('auth', '401'))).toMatch(/needs to check the API key/);
  });

  it('names the setting to change when the endpoint cannot call tools', () => {
    expect(describeFailure(new ModelError('tools_unsupported', 'no tools'))).toMatch(/AGENT_STRATEGY=auto/);
  });

  it('passes a file’s own sentence through, and names Slack’s error code without a stack trace', () => {
    expect(describeFailure(new FileReadError('encrypted', 'report.pdf is password-protected, so I can’t read it.'))).toBe(
      'report.pdf is password-protected, so I can’t read it.',
    );
    const slackError = Object.assign(new Error('An API error occurred: is_archived'), { data: { error: 'is_archived' } });
    expect(describeFailure(slackError)).toMatch(/\(is_archived\)/);
    expect(describeFailure(new TypeError('x is undefined'))).not.toMatch(/undefined|TypeError/);
  });
});
