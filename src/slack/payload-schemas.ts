/**
 * The shapes of the Slack payloads threadwise handles, checked at the edge before Bolt or any listener sees them.
 * A signed request can still carry a body of unexpected shape (a Slack change, a proxy, a bug, a fuzzer): without
 * this, fields were used before their shape was known (`event.channel.startsWith is not a function`) and the error
 * escaped as an HTTP 500. Objects are loose — Slack adds fields all the time — but every field a listener reads
 * is typed here.
 */
import { z } from 'zod';

const id = z.string().min(1).max(255);
const ts = z.string().regex(/^\d{1,12}(\.\d{1,9})?$/, 'a Slack timestamp like 1700000000.000100');

const file = z.looseObject({ id });

/** app_mention and the message subtypes a person writes (decide-trigger.ts reads these). */
const messageEvent = z.looseObject({
  type: z.enum(['app_mention', 'message']),
  channel: id,
  channel_type: z.string().optional(),
  user: id.optional(),
  bot_id: z.string().optional(),
  subtype: z.string().optional(),
  text: z.string().optional(),
  ts,
  thread_ts: ts.optional(),
  team: z.string().optional(),
  files: z.array(file).max(100).optional(),
});

/** A deleted message: what was derived from it goes too. */
const messageDeleted = z.looseObject({
  type: z.literal('message'),
  subtype: z.literal('message_deleted'),
  channel: id,
  deleted_ts: ts,
  ts: ts.optional(),
  previous_message: z
    .looseObject({ ts: ts.optional(), thread_ts: ts.optional(), files: z.array(file).max(100).optional() })
    .optional(),
});

/** Other message subtypes (edits, joins, bot posts…): read only to be ignored, so only the keys are checked. */
const otherMessage = z.looseObject({
  type: z.literal('message'),
  subtype: z.string(),
  channel: id,
  ts: ts.optional(),
  user: id.optional(),
  bot_id: z.string().optional(),
  thread_ts: ts.optional(),
});

const reactionAdded = z.looseObject({
  type: z.literal('reaction_added'),
  user: id,
  reaction: z.string().min(1).max(100),
  item: z.union([z.looseObject({ type: z.literal('message'), channel: id, ts }), z.looseObject({ type: z.enum(['file', 'file_comment']) })]),
});

const fileDeleted = z.looseObject({ type: z.literal('file_deleted'), file_id: id });

/** Someone joined or left a conversation: who may read it changes (knowledge/directory.ts). */
const membershipEvent = z.looseObject({ type: z.enum(['member_joined_channel', 'member_left_channel']), user: id, channel: id });

const appHomeOpened = z.looseObject({ type: z.literal('app_home_opened'), user: id, tab: z.string().optional() });

/** A person's profile changed; `deleted`: they left the workspace (person-left.ts forgets their grants). */
const userChange = z.looseObject({
  type: z.literal('user_change'),
  user: z.looseObject({ id, team_id: z.string().optional(), deleted: z.boolean().optional() }),
});

/** Agent view (agent-view.ts): the thread's user and, when Slack sends it, the channel the user is looking at. */
const agentViewContext = z.looseObject({ channel_id: id.optional(), team_id: z.string().optional() });
const assistantThreadEvent = z.looseObject({
  type: z.enum(['assistant_thread_started', 'assistant_thread_context_changed']),
  assistant_thread: z.looseObject({ user_id: id, channel_id: id, thread_ts: ts, context: agentViewContext.optional() }),
});
const appContextChanged = z.looseObject({
  type: z.literal('app_context_changed'),
  user: id,
  context: z.looseObject({ entities: z.array(z.looseObject({ type: z.string().optional() })).max(50).optional() }).optional(),
});

/** The subtypes a person writes, as decide-trigger.ts accepts them. */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'me_message']);

const eventSchemaFor = (event: Record<string, unknown>): z.ZodType | undefined => {
  switch (event.type) {
    case 'app_mention':
      return messageEvent;
    case 'message':
      if (event.subtype === 'message_deleted') return messageDeleted;
      if (event.subtype === undefined || PERSON_SUBTYPES.has(event.subtype as string)) return messageEvent;
      return otherMessage;
    case 'reaction_added':
      return reactionAdded;
    case 'file_deleted':
      return fileDeleted;
    case 'app_home_opened':
      return appHomeOpened;
    case 'user_change':
      return userChange;
    case 'assistant_thread_started':
    case 'assistant_thread_context_changed':
      return assistantThreadEvent;
    case 'app_context_changed':
      return appContextChanged;
    case 'member_joined_channel':
    case 'member_left_channel':
      return membershipEvent;
    default:
      return undefined;
  }
};

const eventEnvelope = z.looseObject({
  type: z.literal('event_callback'),
  event_id: z.string().min(1).max(255).optional(),
  team_id: z.string().optional(),
  event: z.looseObject({ type: z.string() }),
});

const askCommand = z.looseObject({
  command: z.literal('/ask'),
  text: z.string().max(40_000),
  user_id: id,
  channel_id: id,
  team_id: z.string().optional(),
  response_url: z.string().url().optional(),
});

const blockActions = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id }),
  /** For opening a modal in answer (e.g. an approval's full arguments). */
  trigger_id: z.string().min(1).optional(),
  actions: z.array(z.looseObject({ action_id: z.string().min(1), value: z.string().optional() })).min(1).max(25),
  channel: z.looseObject({ id }).optional(),
  message: z.looseObject({ ts: ts.optional(), thread_ts: ts.optional() }).optional(),
});

/** The message shortcut "Ask threadwise" (ask-shortcuts.ts): the message whose thread the answer goes to. */
const messageShortcut = z.looseObject({
  type: z.literal('message_action'),
  callback_id: z.string().min(1).max(255),
  trigger_id: z.string().min(1),
  user: z.looseObject({ id }),
  channel: z.looseObject({ id }),
  message: z.looseObject({ ts, thread_ts: ts.optional() }),
});

const globalShortcut = z.looseObject({
  type: z.literal('shortcut'),
  callback_id: z.string().min(1).max(255),
  trigger_id: z.string().min(1),
  user: z.looseObject({ id }),
});

/** The settings and ask forms (settings-surface.ts, ask-shortcuts.ts): who submitted, and the form's values. */
const viewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  user: z.looseObject({ id }),
  view: z.looseObject({
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000).optional(),
    state: z.looseObject({ values: z.record(z.string(), z.record(z.string(), z.looseObject({}))) }).optional(),
  }),
});

const INTERACTION_SCHEMAS: Record<string, z.ZodType> = {
  block_actions: blockActions,
  message_action: messageShortcut,
  shortcut: globalShortcut,
  view_submission: viewSubmission,
};

/*
 * The payloads as listeners receive them: Bolt hands over only what validateSlackPayload let through (app/
 * validated-payloads.ts puts the check in front of every receiver), so these types are what a listener may rely on.
 */
export type MessageEventPayload = z.infer<typeof messageEvent>;
export type MessageDeletedPayload = z.infer<typeof messageDeleted>;
type OtherMessagePayload = z.infer<typeof otherMessage>;
export type ReactionAddedPayload = z.infer<typeof reactionAdded>;
type FileDeletedPayload = z.infer<typeof fileDeleted>;
export type AppHomeOpenedPayload = z.infer<typeof appHomeOpened>;
export type AssistantThreadEventPayload = z.infer<typeof assistantThreadEvent>;
export type AppContextChangedPayload = z.infer<typeof appContextChanged>;
/** The body an event came in: its envelope (the event itself is typed by its name, in SlackEventPayloads). */
export type EventEnvelopePayload = z.infer<typeof eventEnvelope>;
export type UserChangePayload = z.infer<typeof userChange>;
export type AskCommandPayload = z.infer<typeof askCommand>;
export type BlockActionsPayload = z.infer<typeof blockActions>;
export type BlockActionPayload = BlockActionsPayload['actions'][number];

/** Each event threadwise handles, by name, as validated (eventSchemaFor). */
export interface SlackEventPayloads {
  app_mention: MessageEventPayload;
  message: MessageEventPayload | MessageDeletedPayload | OtherMessagePayload;
  reaction_added: ReactionAddedPayload;
  file_deleted: FileDeletedPayload;
  app_home_opened: AppHomeOpenedPayload;
  user_change: UserChangePayload;
  assistant_thread_started: AssistantThreadEventPayload;
  assistant_thread_context_changed: AssistantThreadEventPayload;
  app_context_changed: AppContextChangedPayload;
}

/** A message event that says a message was deleted (its subtype alone does not narrow the union). */
export function isMessageDeleted(event: SlackEventPayloads['message']): event is MessageDeletedPayload {
  return event.subtype === 'message_deleted';
}

/** A message a person wrote (validated as such): other subtypes are read only to be ignored. */
export function isPersonMessage(event: SlackEventPayloads['message']): event is MessageEventPayload {
  return event.subtype === undefined || PERSON_SUBTYPES.has(event.subtype);
}

export type PayloadVerdict = { ok: true } | { ok: false; kind: string; problem: string; quiet?: boolean };

/**
 * Whether a verified Slack body may reach Bolt. `quiet` marks bodies that are well-formed but not ours to handle
 * (an event type or command threadwise does not subscribe to): dropped without a warning.
 */
export function validateSlackPayload(body: Record<string, unknown>): PayloadVerdict {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ok: false, kind: 'unknown', problem: 'body: not an object' };
  if (body.type === 'event_callback' || 'event' in body) {
    const envelope = eventEnvelope.safeParse(body);
    if (!envelope.success) return refuse('event', envelope.error);
    const event = envelope.data.event as Record<string, unknown>;
    const schema = eventSchemaFor(event);
    if (!schema) return { ok: false, kind: `event ${String(event.type).slice(0, 40)}`, problem: 'not an event threadwise handles', quiet: true };
    const parsed = schema.safeParse(event);
    return parsed.success ? { ok: true } : refuse(`event ${String(event.type)}`, parsed.error, 'event');
  }
  if ('command' in body) {
    if (body.command !== '/ask') return { ok: false, kind: 'command', problem: 'not a command threadwise handles', quiet: typeof body.command === 'string' };
    const parsed = askCommand.safeParse(body);
    return parsed.success ? { ok: true } : refuse('command /ask', parsed.error);
  }
  const interaction = typeof body.type === 'string' ? INTERACTION_SCHEMAS[body.type] : undefined;
  if (interaction) {
    const parsed = interaction.safeParse(body);
    return parsed.success ? { ok: true } : refuse(body.type as string, parsed.error);
  }
  // A form closed without saving: nothing to do, and nothing to warn about.
  if (body.type === 'view_closed') return { ok: false, kind: 'view_closed', problem: 'not a payload threadwise handles', quiet: true };
  return { ok: false, kind: typeof body.type === 'string' ? body.type.slice(0, 40) : 'unknown', problem: 'not a payload threadwise handles' };
}

/** The first problem, by path: "event.channel: expected string, received number". Never the values themselves. */
function refuse(kind: string, error: z.ZodError, prefix?: string): PayloadVerdict {
  const issue = error.issues[0]!;
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return { ok: false, kind, problem: `${path || 'body'}: ${issue.message}`.slice(0, 200) };
}
