/**
 * The app manifest asks for exactly the scopes threadwise uses: every scope's comment names the calls or events
 * that need it and each of those is in the code; every Slack call and event in the code is covered by a declared
 * scope; every subscribed event, shortcut and command has a handler.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const manifestText = readFileSync('manifest.yml', 'utf8');
const manifest = parse(manifestText) as {
  features: { app_home: { home_tab_enabled: boolean }; shortcuts: Array<{ callback_id: string; type: string }>; slash_commands: Array<{ command: string }> };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] }; interactivity: { is_enabled: boolean } };
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.(ts|mts|mjs)$/.test(name) ? [path] : [];
  });
}
// Chained calls split over lines (`client.conversations\n  .info(`) joined back into one name.
const source = sourceFiles('src')
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n')
  .replace(/\s*\n\s*\./g, '.');

/** Slack Web API methods the code calls, by name. */
const SLACK_API = /\.((?:chat|conversations|users|reactions|views|bots|auth)\.[a-zA-Z]+|assistant\.threads\.[a-zA-Z]+|files\.(?:getUploadURLExternal|completeUploadExternal))\(/g;
const calledMethods = new Set([...source.matchAll(SLACK_API)].map((m) => m[1]!).filter((m) => m !== 'chat.completions'));
// files.info goes over plain fetch (with the bot token), not the client.
if (source.includes("new URL('files.info'")) calledMethods.add('files.info');
const handledEvents = new Set([...source.matchAll(/\.event\('([a-z_]+)'/g)].map((m) => m[1]!));

/** Which bot scopes each method or event needs (Slack's method and event reference). Methods needing none: []. */
const NEEDS: Record<string, string[]> = {
  'auth.test': [],
  'views.open': [],
  'views.publish': [],
  'chat.getPermalink': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history', 'mpim:history'],
  'conversations.info': ['channels:read', 'groups:read', 'im:read', 'mpim:read'],
  'conversations.members': ['channels:read', 'groups:read', 'im:read', 'mpim:read'],
  'users.conversations': ['channels:read', 'groups:read'],
  'users.info': ['users:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'assistant.threads.setStatus': ['assistant:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
  'files.info': ['files:read'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  app_mention: ['app_mentions:read'],
  'message.channels': ['channels:history'],
  'message.groups': ['groups:history'],
  'message.im': ['im:history'],
  'message.mpim': ['mpim:history'],
  reaction_added: ['reactions:read'],
  file_deleted: ['files:read'],
  member_joined_channel: ['channels:read', 'groups:read'],
  member_left_channel: ['channels:read', 'groups:read'],
  app_home_opened: [],
  user_change: ['users:read'],
  assistant_thread_started: ['assistant:write'],
  assistant_thread_context_changed: ['assistant:write'],
  app_context_changed: ['assistant:write'],
  '/ask': ['commands'],
};

const scopes = manifest.oauth_config.scopes.bot;
const events = manifest.settings.event_subscriptions.bot_events;
const commentOf = (scope: string) => new RegExp(`^\\s*- ${scope.replace(':', '\\:')} # (.+)$`, 'm').exec(manifestText)?.[1];

describe('manifest.yml', () => {
  it('parses, with the home tab, interactivity, both shortcuts and the agent-view events', () => {
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.shortcuts.map((s) => `${s.type}:${s.callback_id}`).sort()).toEqual(['global:threadwise_ask_global', 'message:threadwise_ask_message']);
    expect(events).toEqual(expect.arrayContaining(['app_home_opened', 'assistant_thread_started', 'assistant_thread_context_changed', 'app_context_changed', 'reaction_added']));
    expect(scopes).not.toContain('im:write');
  });

  it('every Slack call and event in the code is covered by a declared scope', () => {
    const uses = [...calledMethods, ...events, ...manifest.features.slash_commands.map((c) => c.command)];
    for (const use of uses) {
      expect(NEEDS, `no scope entry for ${use}: add it to NEEDS from Slack's reference`).toHaveProperty([use]);
      for (const scope of NEEDS[use]!) expect(scopes, `${use} needs ${scope}`).toContain(scope);
    }
  });

  it('every declared scope is used: its comment names calls or events that are in the code and need it', () => {
    const used = new Set([...calledMethods, ...events, ...manifest.features.slash_commands.map((c) => c.command)]);
    for (const scope of scopes) {
      const comment = commentOf(scope);
      expect(comment, `${scope} has no comment saying which call uses it`).toBeTruthy();
      const named = Object.keys(NEEDS).filter((use) => NEEDS[use]!.includes(scope) && comment!.includes(use) && used.has(use));
      expect(named, `${scope}: its comment names no call or event in use that needs it`).not.toHaveLength(0);
    }
  });

  it('every subscribed event, shortcut and command has a handler in the code', () => {
    for (const event of events) expect(handledEvents, event).toContain(event.startsWith('message.') ? 'message' : event);
    for (const shortcut of manifest.features.shortcuts) expect(source).toContain(`'${shortcut.callback_id}'`);
    for (const command of manifest.features.slash_commands) expect(source).toContain(`command('${command.command}'`);
  });
});
