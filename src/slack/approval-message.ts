/**
 * The message that asks a person to approve a tool call, and what it becomes once decided: which server and tool,
 * the arguments shown as they will be sent (text literally, long values folded, the whole one click away in a modal),
 * two buttons. Never pings anyone.
 */
import type { KnownBlock } from '@slack/types';
import type { ApprovalPrompt } from '../core/approval';
import { escapeMrkdwn } from './format/escape-mrkdwn';

export const APPROVE_ACTION_ID = 'threadwise_approve';
export const DENY_ACTION_ID = 'threadwise_deny';

export const DETAILS_ACTION_ID = 'threadwise_approval_details';

/** A field value longer than this is folded: its start shown, the rest counted, the whole one click away. */
const FOLD_CHARS = 800;
/** Slack's limit for a section's text is 3,000 characters; a folded value's block stays under it with its label. */
const FOLDED_BLOCK_CHARS = 2_600;
const SECTION_CHARS = 2_900;
const MODAL_BLOCKS = 100;
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
      ...describeCall(input.prompt, input.approvalId),
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
export function renderApprovalDecided(prompt: ApprovalPrompt, outcome: ApprovalOutcome, timeZone: string, approvalId?: number): { text: string; blocks: KnownBlock[] } {
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
    blocks: [...describeCall(prompt, approvalId), { type: 'context', elements: [{ type: 'mrkdwn', text: line }] }],
  };
}

function actionLine(prompt: ApprovalPrompt): string {
  const where = prompt.server ? ` on ${prompt.server}` : '';
  return `threadwise wants to run ${prompt.action}${where}`;
}

function describeCall(prompt: ApprovalPrompt, approvalId?: number): KnownBlock[] {
  const where = prompt.server ? ` on *${escapeMrkdwn(prompt.server)}*` : '';
  const warning = prompt.hints?.destructive
    ? '\n:warning: The server marks this tool as destructive: it may delete or overwrite things.'
    : prompt.hints?.readOnly
      ? '\nThe server marks this tool as read-only.'
      : '';
  const fields = argumentFields(prompt.arguments);
  const shown = fields.slice(0, MAX_FIELDS);
  // The whole of every argument, one click away, whenever the message shows less than all of it.
  const partial = fields.length > MAX_FIELDS || shown.some((field) => field.folded);
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `:raising_hand: I'd like to run *${escapeMrkdwn(prompt.action)}*${where}.${warning}` },
      ...(partial && approvalId !== undefined
        ? { accessory: { type: 'button', action_id: DETAILS_ACTION_ID, text: { type: 'plain_text', text: 'Show full arguments' }, value: String(approvalId) } }
        : {}),
    },
  ];
  for (const field of shown) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(field.label)}*\n${field.value}` } });
  }
  if (fields.length > MAX_FIELDS) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${fields.length - MAX_FIELDS} more arguments.` }] });
  }
  if (fields.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: 'No arguments.' }] });
  return blocks;
}

/**
 * Each top-level argument as a labelled value, shown as it will be sent: text literally in a code block (never
 * rendered as Slack formatting, so the approver of a write sees the very characters it writes), anything else as
 * JSON. Long values are folded to their first FOLD_CHARS characters.
 */
function argumentFields(args: unknown): Array<{ label: string; value: string; folded: boolean }> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return args === undefined ? [] : [{ label: 'arguments', ...foldedBlock(toJson(args)) }];
  }
  return Object.entries(args as Record<string, unknown>).map(([key, value]) => ({
    label: humanLabel(key),
    ...(typeof value === 'number' || typeof value === 'boolean' || value === null
      ? { value: `\`${String(value)}\``, folded: false }
      : foldedBlock(typeof value === 'string' ? value : toJson(value))),
  }));
}

function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** A value's start in a code block, and how much more there is. */
function foldedBlock(text: string): { value: string; folded: boolean } {
  if (text.length === 0) return { value: '_(empty text)_', folded: false };
  if (text.trim() === '') return { value: `_(only spaces and line breaks: ${characters(text.length)})_`, folded: false };
  const shown = prefixWithin(text, FOLD_CHARS, FOLDED_BLOCK_CHARS);
  if (shown.length === text.length) return { value: literalBlock(text), folded: false };
  return { value: `${literalBlock(shown)}… _(${(text.length - shown.length).toLocaleString('en-US')} more characters: *Show full arguments* above)_`, folded: true };
}

/**
 * Text as a Slack code block that shows it literally. `&`, `<` and `>` are Slack's control characters even in code,
 * so they are escaped; a backtick is followed by an invisible zero-width space, so no run of them can end the block.
 */
export function literalBlock(text: string): string {
  return `\`\`\`${escapeMrkdwn(text).replace(/`/g, '`\u200B')}\`\`\``;
}

/** The longest start of text of at most maxChars characters whose code block stays within maxBlockChars. */
function prefixWithin(text: string, maxChars: number, maxBlockChars: number): string {
  let cut = Math.min(text.length, maxChars);
  while (cut > 0 && literalBlock(text.slice(0, cut)).length > maxBlockChars) cut = Math.floor(cut * 0.8);
  // Never split a surrogate pair (an emoji) in two.
  if (cut > 0 && cut < text.length && /[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut--;
  return text.slice(0, cut);
}

function characters(n: number): string {
  return `${n.toLocaleString('en-US')} character${n === 1 ? '' : 's'}`;
}

/**
 * The modal behind "Show full arguments": every argument in full, text literally, split over as many code blocks as
 * Slack's limits need (3,000 characters a section, 100 blocks a modal). What still does not fit is counted.
 */
export function renderApprovalDetails(prompt: ApprovalPrompt): { type: 'modal'; title: { type: 'plain_text'; text: string }; close: { type: 'plain_text'; text: string }; blocks: KnownBlock[] } {
  const where = prompt.server ? ` on *${escapeMrkdwn(prompt.server)}*` : '';
  const blocks: KnownBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: `Every argument of *${escapeMrkdwn(prompt.action)}*${where}, exactly as it would be sent.` } }];
  const args = prompt.arguments;
  const entries: Array<[string, string]> =
    args !== null && typeof args === 'object' && !Array.isArray(args)
      ? Object.entries(args as Record<string, unknown>).map(([key, value]) => [humanLabel(key), typeof value === 'string' ? value : toJson(value)])
      : args === undefined
        ? []
        : [['Arguments', toJson(args)]];
  let left = entries.reduce((sum, [, text]) => sum + text.length, 0);
  for (const [label, text] of entries) {
    if (blocks.length >= MODAL_BLOCKS - 2) break;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(label)}* (${characters(text.length)})` } });
    let rest = text;
    if (rest.length === 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: '_(empty text)_' }] });
    while (rest.length > 0 && blocks.length < MODAL_BLOCKS - 1) {
      const piece = prefixWithin(rest, SECTION_CHARS, SECTION_CHARS);
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text: literalBlock(piece) } });
      rest = rest.slice(piece.length);
      left -= piece.length;
    }
  }
  if (left > 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `${characters(left)} more do not fit in a Slack window; the run's record keeps them whole.` }] });
  }
  return { type: 'modal', title: { type: 'plain_text', text: 'Tool call arguments' }, close: { type: 'plain_text', text: 'Close' }, blocks };
}

/** "issue_type" → "Issue type", "projectKey" → "Project key". */
function humanLabel(key: string): string {
  const words = key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function formatTime(at: Date, timeZone: string): string {
  return at.toLocaleString('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short', timeZoneName: 'short' });
}
