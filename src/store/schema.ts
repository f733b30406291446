/**
 * The one schema, for PGlite and PostgreSQL alike. No I/O here: db.ts connects, migrate.ts applies the committed
 * migrations in ../../drizzle. Stay within SQL both PostgreSQL 15 (Debian) and 18 (PGlite) understand.
 */
import type { ContainedFile } from '../core/thread-file';
import type { CurrentStep } from '../core/run-step';
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** Slack events already taken in. Slack retries an event it thinks was lost; the insert is the dedupe. */
export const slackEvents = pgTable('slack_events', {
  eventId: text('event_id').primaryKey(),
  receivedAt: createdAt(),
});

/**
 * Messages already claimed for an answer. One message may arrive as both `app_mention` and `message` (two event
 * ids); the (channel, ts) key makes sure it is answered once.
 */
export const claimedMessages = pgTable(
  'claimed_messages',
  {
    channelId: text('channel_id').notNull(),
    messageTs: text('message_ts').notNull(),
    claimedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.messageTs] })],
);

export const threads = pgTable(
  'threads',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: text('team_id').notNull().default(''),
    channelId: text('channel_id').notNull(),
    threadTs: text('thread_ts').notNull(),
    /** The thread's first message mentioned the bot (or the bot started it): follow-ups need no mention. */
    engaged: boolean('engaged').notNull().default(false),
    /** Cached summary of turns that no longer fit the budget, and how many turns it covers. */
    summary: text('summary'),
    summaryTurns: integer('summary_turns'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('threads_channel_thread_idx').on(t.channelId, t.threadTs)],
);

/** The thread's Slack messages as last read, so a rebuild does not need every page again. */
export const threadMessages = pgTable(
  'thread_messages',
  {
    threadId: bigint('thread_id', { mode: 'number' })
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    ts: text('ts').notNull(),
    payload: jsonb('payload').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.threadId, t.ts] })],
);

/**
 * One answer being produced. Written before any work starts (pending), claimed with a lease by one process
 * (running), finished as done | failed | cancelled. A lease that expires belongs to a dead process and is taken over.
 */
export const runs = pgTable(
  'runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    threadId: bigint('thread_id', { mode: 'number' })
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    /**
     * pending → running → done | failed | cancelled. A run whose tool call waits for a person is
     * waiting_approval (no lease, its turn in parked_state) until every call is decided, then resumable.
     */
    status: text('status', { enum: ['pending', 'running', 'waiting_approval', 'resumable', 'done', 'failed', 'cancelled', 'refused'] }).notNull(),
    /** The message that asked, and the user who wrote it. */
    triggerTs: text('trigger_ts').notNull(),
    triggerUserId: text('trigger_user_id'),
    teamId: text('team_id'),
    /** The thread's channel, copied here so the console's filters and the daily limits need no join. */
    channelId: text('channel_id'),
    /** The first line of the message that asked (mentions removed), for the console's list. */
    question: text('question'),
    /** The answer as posted, for the console's run page. */
    answer: text('answer'),
    /** What the run's model calls cost in US dollars at MODEL_PRICES; the daily limits sum it. */
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    /** Images the model was shown with the question (names), for the console's run page. */
    imagesShown: jsonb('images_shown').$type<string[]>().notNull().default([]),
    /** Messages that arrived during an earlier run and are answered by this one. */
    foldedTs: jsonb('folded_ts').$type<string[]>().notNull().default([]),
    model: text('model'),
    strategy: text('strategy'),
    iterations: integer('iterations').notNull().default(0),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    skillsLoaded: jsonb('skills_loaded').$type<string[]>().notNull().default([]),
    /** Compact record of what the run read, replayed into later turns' history. */
    activity: text('activity'),
    /** ts of the answer message(s) posted, so a resumed run never posts twice. */
    answerTs: jsonb('answer_ts').$type<string[]>().notNull().default([]),
    /**
     * Messages the answer has started in (streamed or posted) and not yet recorded as the answer: an attempt that
     * dies mid-answer leaves them half-written, and the next attempt retires them instead of answering beside them.
     */
    draftTs: jsonb('draft_ts').$type<string[]>().notNull().default([]),
    statusMessageTs: text('status_message_ts'),
    /** The agent's turn while it waits for approval (request so far, waiting calls); cleared when it carries on. */
    parkedState: jsonb('parked_state'),
    /** Set by whichever replica received the cancel; the lease holder sees it on its next heartbeat. */
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    /**
     * What the run is doing now (a model call, tools, a sign-in) and since when, for the console; set as each starts,
     * cleared as it ends and when the run is claimed, parked or finished. Its steps are only recorded at the end.
     */
    currentStep: jsonb('current_step').$type<CurrentStep>(),
    currentStepAt: timestamp('current_step_at', { withTimezone: true }),
    error: text('error'),
    attempts: integer('attempts').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
    createdAt: createdAt(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('runs_thread_idx').on(t.threadId, t.id),
    index('runs_status_idx').on(t.status),
    // The per-user rate limit counts a user's runs of the last minute inside every intake transaction.
    index('runs_user_recent_idx').on(t.triggerUserId, t.createdAt),
    uniqueIndex('runs_trigger_idx').on(t.threadId, t.triggerTs),
    // The console's list (newest first, filtered) and the intake's daily-limit sums; see README § Operator console.
    index('runs_created_idx').on(t.createdAt),
    index('runs_channel_created_idx').on(t.channelId, t.createdAt),
    index('runs_model_created_idx').on(t.model, t.createdAt),
    index('runs_status_created_idx').on(t.status, t.createdAt),
    // At most one waiting and one working run per thread: messages that arrive meanwhile fold into the waiting one.
    uniqueIndex('runs_one_pending_per_thread').on(t.threadId).where(sql`status = 'pending'`),
    uniqueIndex('runs_one_running_per_thread').on(t.threadId).where(sql`status = 'running'`),
  ],
);

/**
 * A tool call that waits for a person's decision: what was asked, the message with the buttons, who decided and
 * when. Decided once (a conditional update), executed at most once (executed_at set before the call runs).
 */
export const approvals = pgTable(
  'approvals',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: bigint('run_id', { mode: 'number' })
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    callId: text('call_id').notNull(),
    tool: text('tool').notNull(),
    server: text('server'),
    action: text('action').notNull(),
    arguments: jsonb('arguments'),
    hints: jsonb('hints').$type<{ readOnly?: boolean; destructive?: boolean }>(),
    status: text('status', { enum: ['pending', 'approved', 'denied', 'expired'] }).notNull().default('pending'),
    /** Who may decide besides ADMIN_USERS: the person who asked. */
    requestedBy: text('requested_by'),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    executedAt: timestamp('executed_at', { withTimezone: true }),
    channelId: text('channel_id').notNull(),
    threadTs: text('thread_ts').notNull(),
    messageTs: text('message_ts'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('approvals_call_idx').on(t.runId, t.callId),
    index('approvals_pending_idx').on(t.expiresAt).where(sql`status = 'pending'`),
  ],
);

/** Every model call and tool call of a run, with what it cost. */
export const runSteps = pgTable(
  'run_steps',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: bigint('run_id', { mode: 'number' })
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['model', 'tool', 'subagent_model', 'subagent_tool', 'approval_request', 'approval_decision'] }).notNull(),
    /** Model name, or tool name. */
    name: text('name').notNull(),
    iteration: integer('iteration').notNull(),
    arguments: jsonb('arguments'),
    resultChars: integer('result_chars'),
    inputTokens: integer('input_tokens'),
    outputTokens: integer('output_tokens'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    /** When the call began (the rows of a run are written together at its end, so created_at cannot say). */
    startedAt: timestamp('started_at', { withTimezone: true }),
    /** Tool calls: the first lines of the result, for the console's timeline. */
    resultPreview: text('result_preview'),
    createdAt: createdAt(),
  },
  (t) => [index('run_steps_run_idx').on(t.runId)],
);

export const feedback = pgTable(
  'feedback',
  {
    runId: bigint('run_id', { mode: 'number' })
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    value: text('value', { enum: ['positive', 'negative'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.userId] })],
);

/**
 * The names of the people and channels runs met (users.info, conversations.info, as a run resolves them), so the
 * console shows "#incidents" and "Ana" rather than C0123 and U0456. A cache: a row is rewritten when a name changes.
 */
export const slackNames = pgTable('slack_names', {
  /** A user id (U…, W…) or a channel id (C…, G…, D…): Slack's ids do not collide across the two. */
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ['user', 'channel'] }).notNull(),
  name: text('name').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The thread's files, each with its short stable id ("F1"; virtual extractions "F1.txt"). */
export const threadFiles = pgTable(
  'thread_files',
  {
    threadId: bigint('thread_id', { mode: 'number' })
      .notNull()
      .references(() => threads.id, { onDelete: 'cascade' }),
    fileId: text('file_id').notNull(),
    /** Slack's file id; null for virtual files. */
    slackFileId: text('slack_file_id'),
    sourceFileId: text('source_file_id'),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    fileType: text('file_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    messageTs: text('message_ts').notNull(),
    authorName: text('author_name'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.fileId] }),
    uniqueIndex('thread_files_slack_idx').on(t.threadId, t.slackFileId),
  ],
);

/**
 * Extracted text, cached by content hash: the same bytes are parsed once whoever shares them. `slack_file_id` points
 * here through fileContents so a second question costs no download either.
 */
export const documents = pgTable('documents', {
  contentHash: text('content_hash').primaryKey(),
  text: text('text'),
  pageCount: integer('page_count'),
  outline: jsonb('outline').notNull().default([]),
  segments: jsonb('segments').notNull().default([]),
  notes: jsonb('notes').$type<string[]>().notNull().default([]),
  /** Files inside this one (archive entries, attachments, embedded pictures); null for most documents. */
  entries: jsonb('entries').$type<ContainedFile[]>(),
  errorCode: text('error_code'),
  errorMessage: text('error_message'),
  /** Set once chunks for search are built. */
  indexedAt: timestamp('indexed_at', { withTimezone: true }),
  /** The SEARCH_INDEX_VERSION they were built with (search/index-document.ts); null: before versions were kept. */
  indexVersion: integer('index_version'),
  createdAt: createdAt(),
});

export const slackFileContents = pgTable('slack_file_contents', {
  slackFileId: text('slack_file_id').primaryKey(),
  contentHash: text('content_hash').notNull(),
  sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
  createdAt: createdAt(),
});

/** Image descriptions written once by the model: caption plus any text in the image. */
export const imageDescriptions = pgTable('image_descriptions', {
  slackFileId: text('slack_file_id').primaryKey(),
  description: text('description').notNull(),
  model: text('model').notNull(),
  createdAt: createdAt(),
});

/** Search chunks of a document, following its structure (pages, headings, sheets, slides). */
export const chunks = pgTable(
  'chunks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    contentHash: text('content_hash')
      .notNull()
      .references(() => documents.contentHash, { onDelete: 'cascade' }),
    ordinal: integer('ordinal').notNull(),
    text: text('text').notNull(),
    location: text('location').notNull(),
    page: integer('page'),
    startOffset: integer('start_offset').notNull(),
    endOffset: integer('end_offset').notNull(),
    tokens: integer('tokens').notNull(),
    /** Words, for the languages PostgreSQL's parser splits. */
    tsv: tsvector('tsv').notNull(),
    /** Overlapping character bigrams of CJK text, which the parser does not split into words. */
    cjkTsv: tsvector('cjk_tsv'),
    embedding: real('embedding').array(),
    embeddingModel: text('embedding_model'),
  },
  (t) => [
    uniqueIndex('chunks_doc_ordinal_idx').on(t.contentHash, t.ordinal),
    index('chunks_tsv_idx').using('gin', t.tsv),
    index('chunks_cjk_tsv_idx').using('gin', t.cjkTsv),
  ],
);


/**
 * What a channel changed of threadwise's settings (only the fields it overrides; the environment gives the rest),
 * validated by config/channel-settings.ts before it is written.
 */
export const channelSettings = pgTable(
  'channel_settings',
  {
    teamId: text('team_id').notNull(),
    channelId: text('channel_id').notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.channelId] })],
);

/** Every change to a channel's settings, one row per field: who, when, the value before and after (null: default). */
export const channelSettingsHistory = pgTable(
  'channel_settings_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: text('team_id').notNull(),
    channelId: text('channel_id').notNull(),
    field: text('field').notNull(),
    oldValue: jsonb('old_value'),
    newValue: jsonb('new_value'),
    changedBy: text('changed_by').notNull(),
    changedAt: createdAt(),
  },
  (t) => [index('channel_settings_history_channel_idx').on(t.teamId, t.channelId, t.changedAt)],
);

/**
 * One row, one counter, raised by every settings write: each replica caches settings and reads only this (a primary
 * key lookup) to know whether its cache went stale — on PGlite and PostgreSQL alike.
 */
export const channelSettingsVersion = pgTable('channel_settings_version', {
  id: integer('id').primaryKey().default(1),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * Events API deliveries, written before Slack gets its 200 (Slack never delivers again an event it got a 200 for).
 * A row lives until what it asked for is durable: deleted in the transaction that writes its run (or its refusal),
 * or once the app has decided it needs none. A row whose receiving process died is replayed by another process;
 * the event-id dedupe makes the replay of an event already handled a no-op.
 */
export const slackDeliveries = pgTable(
  'slack_deliveries',
  {
    id: text('id').primaryKey(),
    /** The process that received it: its heartbeat (replicas) says whether it is still working on it. */
    receivedBy: text('received_by').notNull(),
    body: jsonb('body').notNull(),
    retryNum: integer('retry_num'),
    retryReason: text('retry_reason'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set while another process replays it, so that two do not replay it at once. */
    replayedAt: timestamp('replayed_at', { withTimezone: true }),
  },
  (t) => [index('slack_deliveries_received_idx').on(t.receivedAt)],
);

/**
 * `/ask` questions, recorded before the command is acknowledged and before the question is posted; deleted in the
 * transaction that writes the run. A row whose process died is finished by another: it finds the posted question
 * by its metadata (question_id), or posts it, and admits it once.
 */
export const pendingQuestions = pgTable('pending_questions', {
  id: text('id').primaryKey(),
  receivedBy: text('received_by').notNull(),
  channelId: text('channel_id').notNull(),
  userId: text('user_id').notNull(),
  teamId: text('team_id'),
  question: text('question').notNull(),
  /** Asked in this thread (a shortcut on a message, a reaction trigger); null: the question starts a thread. */
  threadTs: text('thread_ts'),
  /** How it was asked, for the posted line ("via the shortcut", "with :memo:"); null for `/ask`. */
  via: text('via'),
  /** Whether follow-ups in its thread need no mention (false for a question asked inside someone's thread). */
  engages: boolean('engages').notNull().default(true),
  /** Where it landed once posted (a DM's id is only known then): recovery admits it there without searching. */
  postedChannelId: text('posted_channel_id'),
  postedTs: text('posted_ts'),
  /** A reaction trigger's question: its claim (reaction_trigger_claims) is given back if Slack refuses the question. */
  reaction: text('reaction'),
  reactedTs: text('reacted_ts'),
  createdAt: createdAt(),
  recoveredAt: timestamp('recovered_at', { withTimezone: true }),
});

/** Each running process and its last heartbeat: how another tells a dead process's deliveries from a busy one's. */
export const replicas = pgTable('replicas', {
  id: text('id').primaryKey(),
  heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Reaction triggers that already started a run: one row per message and emoji, so a reaction added again (or
 * delivered again by Slack, or removed and re-added) starts nothing more, on any replica.
 */
export const reactionTriggerClaims = pgTable(
  'reaction_trigger_claims',
  {
    channelId: text('channel_id').notNull(),
    messageTs: text('message_ts').notNull(),
    reaction: text('reaction').notNull(),
    /** Who reacted first: the run is theirs. */
    userId: text('user_id').notNull(),
    claimedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.messageTs, t.reaction] })],
);

/**
 * The channel each person was last looking at while threadwise's agent view was open (assistant_thread_started,
 * assistant_thread_context_changed, app_context_changed): their DMs with threadwise use that channel's settings.
 */
export const userAppContext = pgTable(
  'user_app_context',
  {
    teamId: text('team_id').notNull(),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
);

/** When a user was last told they are over the rate limit: one notice per user per window, across replicas. */
export const rateLimitNotices = pgTable('rate_limit_notices', {
  userId: text('user_id').primaryKey(),
  notifiedAt: timestamp('notified_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A daily spend limit lifted by an admin from the console: for one user or one channel, for one UTC day. The intake
 * reads it in the same statement as the day's spend, so every replica sees it at once.
 */
export const spendLimitOverrides = pgTable(
  'spend_limit_overrides',
  {
    scope: text('scope', { enum: ['user', 'channel'] }).notNull(),
    subjectId: text('subject_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    liftedBy: text('lifted_by').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.subjectId, t.day] })],
);

/**
 * Scheduled tasks (schedule_task): a prompt run as its owner in its thread, once at a time or on a 5-field cron, in
 * a time zone. `next_due_at` is the next occurrence to claim (null once nothing is left); only active tasks are due.
 * The schedule's logic lives in src/tasks/; these are its rows.
 */
export const scheduledTasks = pgTable(
  'scheduled_tasks',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: text('team_id').notNull().default(''),
    channelId: text('channel_id').notNull(),
    threadTs: text('thread_ts').notNull(),
    /** Who created it: each occurrence runs as this person (their access, their spend). */
    ownerId: text('owner_id').notNull(),
    prompt: text('prompt').notNull(),
    /** once: `schedule` is an ISO 8601 local date-time; cron: a 5-field cron expression. Both in `time_zone`. */
    scheduleKind: text('schedule_kind', { enum: ['once', 'cron'] }).notNull(),
    schedule: text('schedule').notNull(),
    timeZone: text('time_zone').notNull(),
    nextDueAt: timestamp('next_due_at', { withTimezone: true }),
    /** active → paused (by a person, or itself after repeated failures) → active; done (a once task ran); deleted. */
    state: text('state', { enum: ['active', 'paused', 'done', 'deleted'] }).notNull().default('active'),
    /** Why it is paused: 'failures' when it paused itself, else who paused it. */
    pausedReason: text('paused_reason'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** ok | failed | skipped (the owner's daily spend limit), with a short reason for the last two; null before the first occurrence finished. */
    lastResult: text('last_result', { enum: ['ok', 'failed', 'skipped'] }),
    lastError: text('last_error'),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    /** The announcement message in the thread (its Delete button), updated when the task ends. */
    announcementTs: text('announcement_ts'),
    changedBy: text('changed_by'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The scheduler's only idle-time question: the earliest due active task.
    index('scheduled_tasks_due_idx').on(t.nextDueAt).where(sql`state = 'active'`),
    index('scheduled_tasks_owner_idx').on(t.ownerId, t.state),
    index('scheduled_tasks_thread_idx').on(t.channelId, t.threadTs),
  ],
);

/**
 * One row per (task, due time), inserted when the occurrence is claimed, in the transaction that advances the task's
 * next_due_at: the unique key is why a restart or a second replica can never make two runs of one occurrence.
 */
export const taskOccurrences = pgTable(
  'task_occurrences',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    taskId: bigint('task_id', { mode: 'number' })
      .notNull()
      .references(() => scheduledTasks.id, { onDelete: 'cascade' }),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull(),
    claimedBy: text('claimed_by').notNull(),
    /** How long after its due time it was claimed (a process was down): > 0 beyond the scheduler's tolerance = late. */
    lateMs: bigint('late_ms', { mode: 'number' }).notNull().default(0),
    /** The run that answers it, when the enqueue callback made one. */
    runId: bigint('run_id', { mode: 'number' }).references(() => runs.id, { onDelete: 'set null' }),
    result: text('result', { enum: ['ok', 'failed', 'skipped'] }),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('task_occurrences_due_idx').on(t.taskId, t.dueAt),
    index('task_occurrences_run_idx').on(t.runId),
  ],
);

/** One row, one counter, raised by every change of a task a scheduler must see (create, delete, pause, resume). */
export const scheduledTasksVersion = pgTable('scheduled_tasks_version', {
  id: integer('id').primaryKey().default(1),
  version: bigint('version', { mode: 'number' }).notNull().default(0),
});

/**
 * Per-person sign-in (README § Per-person sign-in): one row per person and MCP server with `"auth": "oauth"` they
 * connected. The tokens (access, refresh, expiry, issuer) are one AES-256-GCM ciphertext under TOKEN_ENCRYPTION_KEY,
 * bound to this row's (team, user, server); `key_id` names the key that sealed it, so a rotated key is still read.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    teamId: text('team_id').notNull(),
    userId: text('user_id').notNull(),
    server: text('server').notNull(),
    tokensSealed: text('tokens_sealed').notNull(),
    keyId: text('key_id').notNull(),
    /** Scopes granted, as the server said (not secret): for App Home and the admin list. */
    scope: text('scope'),
    connectedAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId, t.server] })],
);

/**
 * What threadwise knows of each per-person server: its registration as an OAuth client (dynamic registration's
 * result, sealed — it may hold a client secret), what discovery found (public metadata), and the tool list as last
 * listed by whoever connected (offered to the model before the speaker has connected).
 */
export const oauthServers = pgTable('oauth_servers', {
  server: text('server').primaryKey(),
  clientSealed: text('client_sealed'),
  keyId: text('key_id'),
  discovery: jsonb('discovery'),
  tools: jsonb('tools').$type<unknown[]>(),
  toolsListedAt: timestamp('tools_listed_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A sign-in in progress: the OAuth `state` (only its SHA-256 is kept) bound to the person, the server and the run
 * parked for it; the PKCE verifier sealed. Used once (pending → done), refused after expires_at (10 minutes).
 */
export const oauthSignIns = pgTable(
  'oauth_sign_ins',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    stateHash: text('state_hash').notNull(),
    teamId: text('team_id').notNull(),
    userId: text('user_id').notNull(),
    server: text('server').notNull(),
    verifierSealed: text('verifier_sealed').notNull(),
    keyId: text('key_id').notNull(),
    /** The run parked for it, and the call that waits; null until the run parks (or for App Home's Connect). */
    runId: bigint('run_id', { mode: 'number' }).references(() => runs.id, { onDelete: 'cascade' }),
    callId: text('call_id'),
    status: text('status', { enum: ['pending', 'done', 'expired', 'superseded'] }).notNull().default('pending'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('oauth_sign_ins_state_idx').on(t.stateHash),
    index('oauth_sign_ins_run_idx').on(t.runId).where(sql`status = 'pending'`),
    index('oauth_sign_ins_person_idx').on(t.teamId, t.userId, t.server),
  ],
);

/**
 * Channels whose messages threadwise keeps for search_messages and read_channel (knowledge/): the name to show, the
 * kind Slack gave, and when the last backfill ran. Who may read a channel is decided when a search runs, never here.
 */
export const knowledgeChannels = pgTable('knowledge_channels', {
  channelId: text('channel_id').primaryKey(),
  teamId: text('team_id').notNull(),
  name: text('name'),
  /** channel | group | im | mpim, as Slack's message events say (channel_type). */
  kind: text('kind'),
  backfilledAt: timestamp('backfilled_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Messages of the channels threadwise is a member of, from message events and a bounded backfill, with their
 * full-text vectors analysed as search_file's chunks are (language, stemming, CJK bigrams). An edit rewrites the
 * row; a deletion blanks it and keeps only the key, so a late event or backfill page cannot bring it back. Swept
 * after RETENTION_DAYS by the time it was posted.
 */
export const indexedMessages = pgTable(
  'indexed_messages',
  {
    channelId: text('channel_id').notNull(),
    ts: text('ts').notNull(),
    teamId: text('team_id').notNull(),
    /** The thread's parent ts for a reply; null for a message outside any thread (a parent has its own ts). */
    threadTs: text('thread_ts'),
    userId: text('user_id'),
    text: text('text').notNull(),
    edited: boolean('edited').notNull().default(false),
    deleted: boolean('deleted').notNull().default(false),
    /** The ts as a time: date filters, ordering and retention. */
    postedAt: timestamp('posted_at', { withTimezone: true }).notNull(),
    /** Words in the text, for BM25's length normalisation. */
    tokens: integer('tokens').notNull(),
    tsv: tsvector('tsv').notNull(),
    cjkTsv: tsvector('cjk_tsv'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.ts] }),
    // fastupdate off: a pending list (what fastupdate queues inserts in) is read in full by every search until a
    // vacuum merges it, and PGlite runs no autovacuum; messages arrive one by one, so direct updates cost little.
    index('indexed_messages_tsv_idx').using('gin', t.tsv).with({ fastupdate: false }),
    index('indexed_messages_cjk_tsv_idx').using('gin', t.cjkTsv).with({ fastupdate: false }),
    index('indexed_messages_channel_posted_idx').on(t.channelId, t.postedAt),
    index('indexed_messages_thread_idx').on(t.channelId, t.threadTs),
    index('indexed_messages_posted_idx').on(t.postedAt),
  ],
);

/**
 * What people asked threadwise to remember (remember / forget): for a channel (every request there carries it) or for
 * its author only. Small on purpose (the tool caps the text); kept until someone forgets it.
 */
export const memories = pgTable(
  'memories',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    teamId: text('team_id').notNull(),
    scope: text('scope', { enum: ['channel', 'personal'] }).notNull(),
    /** Where it was saved: a channel memory belongs to this channel. */
    channelId: text('channel_id').notNull(),
    authorId: text('author_id').notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('memories_channel_idx').on(t.teamId, t.channelId, t.createdAt),
    index('memories_author_idx').on(t.teamId, t.authorId, t.createdAt),
  ],
);
