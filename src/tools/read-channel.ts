/**
 * read_channel(channel, since?, until?): a channel's messages with their threads' replies, oldest first and bounded,
 * for summaries ("summarise #incidents since Monday") — only a channel the asker may read in Slack; for any other, one
 * sentence saying it cannot read that channel for them.
 */
import { z } from 'zod';
import { readChannel, type ChannelMessage } from '../knowledge/read-channel';
import { channelLabel } from '../knowledge/access';
import type { KnowledgeToolDeps } from './knowledge-context';
import { attribute, cannotReadSentence, formatWhen, frameText, MESSAGE_DATA_NOTE, parseDateArgument } from './knowledge-format';
import type { Tool } from './tool';

/** Default window when since is not given. */
const DEFAULT_DAYS = 7;
/** The result at most, in characters; a longer window continues from where it stopped. */
const MAX_RESULT_CHARS = 24_000;
/** One message at most, in characters. */
const MAX_MESSAGE_CHARS = 1_500;

const parameters = z.object({
  channel: z.string().describe('The channel: "#incidents" or its id.'),
  since: z.string().optional().describe(`From this date on (UTC): "2026-11-03", "2026-11-03T14:00:00Z", or days back like "7d". Default: the last ${DEFAULT_DAYS} days.`),
  until: z.string().optional().describe('Before this date (UTC), same forms as since. Default: now.'),
});

export function createReadChannelTool(deps: KnowledgeToolDeps): Tool<z.infer<typeof parameters>> {
  return {
    name: 'read_channel',
    description: [
      "Reads a channel's messages with the replies of their threads, oldest first, to summarise or review what",
      `happened there (default: the last ${DEFAULT_DAYS} days; since/until in UTC). Only channels you are in and the`,
      'person asking can read in Slack. Long windows stop at a bound and say where to continue from. Use',
      'search_messages instead to find something specific.',
    ].join(' '),
    parameters,
    describeProgress: ({ channel }) => `reading ${channel.startsWith('#') ? channel : `#${channel}`}…`,

    async execute(args, context) {
      const now = deps.now();
      const since = parseDateArgument(args.since, 'since', now) ?? new Date(now - DEFAULT_DAYS * 24 * 60 * 60_000);
      const until = parseDateArgument(args.until, 'until', now);
      const reading = await readChannel(deps.db, deps.directory, {
        asker: { teamId: deps.request.teamId, userId: deps.request.userId },
        channel: args.channel,
        since,
        until,
        maxMessages: deps.maxChannelMessages ?? 200,
      });
      if (reading.kind === 'unreadable_channel') return cannotReadSentence(reading.channel);
      const label = channelLabel(reading.channel);
      context.recordActivity(`read ${label}`);
      const window = `since ${formatWhen(since)}${until ? ` until ${formatWhen(until)}` : ''}`;
      if (reading.count === 0) return `No messages in ${label} ${window} (I keep messages from when I joined, for a limited time).`;

      const header = `${label} ${window}: ${reading.count} message${reading.count === 1 ? '' : 's'}, oldest first, replies under their thread. ${MESSAGE_DATA_NOTE}`;
      const body: string[] = [];
      let length = header.length;
      let stoppedAt: Date | undefined = reading.continueFrom;
      outer: for (const thread of reading.threads) {
        const lines: Array<{ line: string; at: Date }> = [];
        if (thread.parent) lines.push({ line: render(thread.parent, thread.parentBefore ? '(thread started earlier) ' : ''), at: thread.parent.postedAt });
        for (const reply of thread.replies) lines.push({ line: `  ↳ ${render(reply, '')}`, at: reply.postedAt });
        for (const { line, at } of lines) {
          if (length + line.length + 1 > MAX_RESULT_CHARS) {
            stoppedAt = at;
            break outer;
          }
          body.push(line);
          length += line.length + 1;
        }
      }
      const result = [header, `<slack_channel name="${attribute(label)}">`, ...body, '</slack_channel>'];
      if (stoppedAt) {
        result.push(`[cut: more messages follow — call read_channel(${JSON.stringify(args.channel)}, since: ${JSON.stringify(stoppedAt.toISOString())}) for the rest]`);
      }
      return result.join('\n');
    },
  };
}

function render(message: ChannelMessage, prefix: string): string {
  const text = message.text.length > MAX_MESSAGE_CHARS ? `${message.text.slice(0, MAX_MESSAGE_CHARS)}… [message cut]` : message.text;
  return `${prefix}[${formatWhen(message.postedAt)}] ${frameText(`${message.author}${message.edited ? ' (edited)' : ''}: ${text}`).replace(/\n/g, '\n    ')}`;
}
