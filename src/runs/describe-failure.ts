import { ModelError } from '../core/chat';
import { slackErrorCode } from '../core/errors';
import { FileReadError } from '../core/thread-file';

/**
 * Any failure → one short sentence for the thread. Never a stack trace, never silence; always says whether trying
 * again will help.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof ModelError) {
    switch (error.kind) {
      case 'rate_limited':
        return 'Sorry — the AI model is rate-limiting me right now. Please ask again in a minute.';
      case 'unreachable':
        return 'Sorry — I can’t reach the AI model right now (I tried several times). Please ask again in a few minutes; if it keeps happening, tell the team that runs me.';
      case 'unavailable':
        return 'Sorry — the AI model isn’t answering right now (I tried several times). Please ask again in a minute.';
      case 'context_length':
        return 'Sorry — this thread is too long for the model even after trimming. Start a new thread with the key details and I’ll pick it up.';
      case 'tools_unsupported':
        return 'Sorry — the AI model behind me does not support tool calling, and I’m set to require it. The team that runs me can set AGENT_STRATEGY=auto (or react) to fix this.';
      case 'auth':
        return 'Sorry — the AI model refused my credentials. The team that runs me needs to check the API key.';
      default:
        return 'Sorry — the AI model refused my request. Please try rephrasing, or ask the team that runs me to check the logs.';
    }
  }
  if (error instanceof FileReadError) return error.message;
  const slackCode = slackErrorCode(error);
  if (slackCode) {
    return `Sorry — Slack refused something I needed (${slackCode}), so I couldn’t finish. Please try again; if it keeps happening, tell the team that runs me.`;
  }
  return 'Sorry — something went wrong on my side while answering. Please try again; if it keeps happening, tell the team that runs me.';
}
