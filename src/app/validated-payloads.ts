/**
 * Slack payloads are checked against their schemas (slack/payload-schemas.ts) before Bolt sees them, whichever
 * receiver brought them (the threaded HTTP receiver or Socket Mode): both hand every verified request to
 * `app.processEvent`, so that is where the check goes. A payload of unexpected shape is acknowledged (Slack would
 * only send it again), logged in one line that says what was wrong and never what it said, and dropped: no listener
 * and no Bolt helper (which reads `event.channel` before any listener runs) ever sees it.
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../logging/logger';
import { validateSlackPayload } from '../slack/payload-schemas';

export function validatePayloadsAtTheEdge(app: App, logger: Logger): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    const verdict = validateSlackPayload(event.body as Record<string, unknown>);
    if (verdict.ok) return processEvent(event);
    if (verdict.quiet) logger.debug('dropped a Slack payload threadwise does not handle', { kind: verdict.kind });
    else logger.warn('dropped a Slack payload of unexpected shape', { kind: verdict.kind, problem: verdict.problem });
    await event.ack();
  };
}
