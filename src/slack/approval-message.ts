/**
 * The message that asks a person to approve a tool call, and what it becomes once decided: which server and tool,
 * the arguments shown readably (text rendered, long values folded), two buttons. Never pings anyone.
 */
import type { KnownBlock } from '@slack/types';
import type { ApprovalPrompt } from '../core/approval';
import { escapeMrkdwn } from './format/escape-mrkdwn';
import { markdownToMrkdwn } from './format';

export const APPROVE_ACTION_ID = 'threadwise_approve';
export const DENY_ACTION_ID = 'threadwise_deny';

/** A field value longer than this is folded: its start shown, the rest counted. */
const FOLD_CHARS = 600;
/** Slack's limit for a section's text is 3,000 characters; stay well under it with the label. */
const SECTION_CHARS = 2_800;
const MAX_FIELDS = 12;

export interface ApprovalMessageInput {
  approvalId: number;
  prompt: ApprovalPrompt;
  requestedBy?: string;
  expiresAt: Date;
  timeZone: string;
}

export type ApprovalOutcome =
  | { status: 'approved' | 'denied'; by: string; at: Date }
  | { status: 'expired'; at: Date }
  | { status: 'cancelled'; at: Date };

/** The request, with Approve and Deny. */
export function renderApprovalRequest(input: ApprovalMessageInput): { text: string; blocks: KnownBlock[] } {
  const who = input.requestedBy ? `<@${input.requestedBy}> or an admin` : 'an admin';
  return {
    text: `${actionLine(input.prompt)} — waiting for approval`,
    blocks: [
      ...describeCall(input.prompt),
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `Nothing happens until ${who} approves. Expires ${formatTime(input.expiresAt, input.timeZone)}.` }],
      },
      {
        type: 'actions',
        block_id: `approval_${input.approvalId}`,
        elements: [
          { type: 'button', action_id: APPROVE_ACTION_ID, text: { type: 'plain_text', text: 'Approve' }, style: 'primary', value: String(input.approvalId) },
          { type: 'button', action_id: DENY_ACTION_ID, text: { type: 'plain_text', text: 'Deny' }, style: 'danger', value: String(input.approvalId) },
        ],
      },
    ],
  };
}

/** The same message once decided: no buttons, who decided and when. */
export function renderApprovalDecided(prompt: ApprovalPrompt, outcome: ApprovalOutcome, timeZone: string): { text: string; blocks: KnownBlock[] } {
  const when = formatTime(outcome.at, timeZone);
  const line =
    outcome.status === 'approved'
      ? `:white_check_mark: Approved by <@${outcome.by}> at ${when}.`
      : outcome.status === 'denied'
        ? `:no_entry_sign: Denied by <@${outcome.by}> at ${when}. It was not run.`
        : outcome.status === 'expired'
          ? `:hourglass: Expired at ${when}: nobody approved it in time, so it was not run.`
          : `:octagonal_sign: Cancelled at ${when}: the answer was stopped, so it was not run.`;
  return {
    text: `${actionLine(prompt)} — ${outcome.status}`,
    blocks: [...describeCall(prompt), { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }],
  };
}

function actionLine(prompt: ApprovalPrompt): string {
  const where = prompt.server ? ` on ${prompt.server}` : '';
  return `threadwise wants to run ${prompt.action}${where}`;
}

function describeCall(prompt: ApprovalPrompt): KnownBlock[] {
  const where = prompt.server ? ` on *${escapeMrkdwn(prompt.server)}*` : '';
  const warning = prompt.hints?.destructive
    ? '\n:warning: The server marks this tool as destructive: it may delete or overwrite things.'
    : prompt.hints?.readOnly
      ? '\nThe server marks this tool as read-only.'
      : '';
  const blocks: KnownBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `:raising_hand: I'd like to run *${escapeMrkdwn(prompt.action)}*${where}.${warning}` } },
  ];
  const fields = argumentFields(prompt.arguments);
  for (const field of fields.slice(0, MAX_FIELDS)) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(field.label)}*\n${field.value}`.slice(0, SECTION_CHARS) } });
  }
  if (fields.length > MAX_FIELDS) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${fields.length - MAX_FIELDS} more arguments.` }] });
  }
  if (fields.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'No arguments.' }] });
  return blocks;
}

/** Each top-level argument as a labelled, readable value: text as text, anything else as folded JSON. */
function argumentFields(args: unknown): Array<{ label: string; value: string }> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args === undefined ? [] : [{ label: 'arguments', value: codeBlock(args) }];
  return Object.entries(args as Record<string, unknown>).map(([key, value]) => ({
    label: humanLabel(key),
    value: typeof value === 'string' ? fold(markdownToMrkdwn(value)) : typeof value === 'number' || typeof value === 'boolean' ? String(value) : codeBlock(value),
  }));
}

function codeBlock(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? String(value);
  return `\`\`\`${escapeMrkdwn(foldText(json))}\`\`\``;
}

function fold(text: string): string {
  return text.length > FOLD_CHARS ? `${text.slice(0, FOLD_CHARS)}… _(${(text.length - FOLD_CHARS).toLocaleString('en-US')} more characters)_` : text;
}

function foldText(text: string): string {
  return text.length > FOLD_CHARS ? `${text.slice(0, FOLD_CHARS)}… (${(text.length - FOLD_CHARS).toLocaleString('en-US')} more characters)` : text;
}

/** "issue_type" → "Issue type", "projectKey" → "Project key". */
function humanLabel(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function formatTime(at: Date, timeZone: string): string {
  return at.toLocaleString('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short', timeZoneName: 'short' });
}
