import { describe, expect, it } from 'vitest';
import { isMessageDeleted, isPersonMessage, validateSlackPayload, type SlackEventPayloads } from '../../src/slack/payload-schemas';

const envelope = (event: Record<string, unknown>) => ({ type: 'event_callback', event_id: 'Ev1', team_id: 'T1', event });

describe('a message event, as a listener tells its kinds apart', () => {
  const cases: Array<[string, Record<string, unknown>, { deleted: boolean; person: boolean }]> = [
    ['a plain message', { type: 'message', channel: 'C1', user: 'U1', text: 'hi', ts: '1700000000.000100' }, { deleted: false, person: true }],
    ['a file share', { type: 'message', subtype: 'file_share', channel: 'C1', user: 'U1', ts: '1700000000.000100' }, { deleted: false, person: true }],
    ['an edit', { type: 'message', subtype: 'message_changed', channel: 'C1', ts: '1700000000.000100' }, { deleted: false, person: false }],
    ['a deletion', { type: 'message', subtype: 'message_deleted', channel: 'C1', deleted_ts: '1700000000.000100' }, { deleted: true, person: false }],
  ];
  for (const [name, event, expected] of cases) {
    it(`${name}: validated, and narrowed as its schema says`, () => {
      expect(validateSlackPayload(envelope(event))).toEqual({ ok: true });
      const message = event as SlackEventPayloads['message'];
      expect(isMessageDeleted(message)).toBe(expected.deleted);
      expect(isPersonMessage(message)).toBe(expected.person);
    });
  }
});
