/**
 * Why no answer comes, said in Slack: over a daily spending limit, in the thread, so everyone there knows; any
 * other refusal (channel or person not allowed, too many questions a minute) only to the person who asked.
 */
import type { WebClient } from '@slack/web-api';
import type { AccessRefusal } from '../runs/access-policy';
import type { Trigger } from '../runs/trigger';

export function createRefusalNotice(client: WebClient): (trigger: Trigger, refusal: AccessRefusal) => Promise<void> {
  return async function tellRefusal(trigger, refusal) {
    if ('inThread' in refusal) {
      await client.chat.postMessage({ channel: trigger.channelId, thread_ts: trigger.threadTs, text: refusal.message, unfurl_links: false });
      return;
    }
    await client.chat.postEphemeral({
      channel: trigger.channelId,
      user: trigger.userId,
      thread_ts: trigger.threadTs === trigger.messageTs ? undefined : trigger.threadTs,
      text: refusal.message,
    });
  };
}
