/**
 * search_messages(query, queries?, channel?, from?, since?, until?): the messages of the channels threadwise is in
 * that best match, among the conversations the asker may read in Slack only — a message from anywhere else is never
 * shown, quoted, counted or hinted at. Each hit names its channel, author and date, links to the message and marks
 * the matched words «like this».
 */
import { z } from 'zod';
import { searchMessages, type MessageHit } from '../knowledge/search-messages';
import type { KnowledgeToolDeps } from './knowledge-context';
import { attribute, cannotReadSentence, formatWhen, frameText, MESSAGE_DATA_NOTE, parseDateArgument, quoteArgument } from './knowledge-format';
import type { Tool, ToolContext } from './tool';

const MAX_PHRASINGS = 5;
/** The whole result at most: hits are short, and eight of them fit well under other tools' caps. */
const MAX_RESULT_CHARS = 12_000;

const parameters = z.object({
  query: z.string().describe('What to look for: the question as asked, or names, numbers, key terms.'),
  queries: z
    .array(z.string())
    .max(MAX_PHRASINGS - 1)
    .optional()
    .describe('More phrasings searched together with query and fused: the same question in the language the messages are likely written in (English messages need English words), the terms people would have used, synonyms. Up to 4.'),
  channel: z.string().optional().describe('Only this channel: "#incidents" or its id. Omit to search every channel the person can read.'),
  from: z.string().optional().describe('Only messages by this person: a name, an @mention or a user id.'),
  since: z.string().optional().describe('Only messages from this date on (UTC): "2026-11-03", "2026-11-03T14:00:00Z", or days back like "7d".'),
  until: z.string().optional().describe('Only messages before this date (UTC), same forms as since.'),
});

export function createSearchMessagesTool(deps: KnowledgeToolDeps): Tool<z.infer<typeof parameters>> {
  const limit = deps.maxHits ?? 8;
  return {
    name: 'search_messages',
    description: [
      'Searches the Slack messages of the channels you are in (thread replies included) for what was said before:',
      'decisions, answers, incidents, "has this come up before?". Only conversations the person asking can read in',
      'Slack are searched. Matching is by words in any inflection (and Chinese/Japanese by characters), not by',
      'meaning: put the question as asked in query and, in queries, the same question in the language the messages',
      'were likely written in and the words people would have used (e.g. query "Staging-Passwort rotieren",',
      'queries ["rotate staging database password"]). Filter with channel, from, since, until. Each hit gives the',
      'channel, author, date (UTC), a link, and the message with matched words marked «like this». When you use a',
      'hit, say where it is from — "in #platform, 3 Nov, Ana: …" — with its link.',
    ].join(' '),
    parameters,
    describeProgress: ({ query, channel }) => `searching ${channel ? `${channel.startsWith('#') ? '' : '#'}${channel}` : 'messages'} for ${shortQuery(query)}…`,

    async execute(args, context) {
      const phrasings = [args.query, ...(args.queries ?? [])].map((q) => q.trim()).filter(Boolean);
      if (phrasings.length === 0) throw new Error('search_messages needs a query: a few words or a short question, e.g. search_messages("staging password rotation").');
      const now = deps.now();
      const result = await searchMessages(deps.db, deps.directory, {
        asker: { teamId: deps.request.teamId, userId: deps.request.userId },
        queries: phrasings,
        channel: args.channel,
        from: args.from,
        since: parseDateArgument(args.since, 'since', now),
        until: parseDateArgument(args.until, 'until', now),
        limit,
        snippetChars: snippetFor(context),
        signal: context.signal,
      });
      context.recordActivity(`searched messages for ${shortQuery(phrasings[0]!)}`);
      if (result.kind === 'unreadable_channel') return cannotReadSentence(result.channel);
      if (result.kind === 'unknown_author') {
        return `No one named ${quoteArgument(result.from)} wrote in the channels searched. Try their user id or @mention, or search without from.`;
      }
      const asked = phrasings.length > 1 ? phrasings.map((p) => quoteArgument(p)).join(' + ') : quoteArgument(phrasings[0]!);
      if (result.hits.length === 0) {
        return [
          `No message in ${result.scope} matches ${asked}.`,
          'Try other words: the terms people would have used, the language the messages would be written in (as queries),',
          'fewer filters or a wider date range.',
        ].join(' ');
      }
      return renderHits(result.hits, asked, result.scope);
    },
  };
}

function renderHits(hits: MessageHit[], asked: string, scope: string): string {
  const lines = [
    `${hits.length} message${hits.length === 1 ? '' : 's'} in ${scope} for ${asked}, best first. ${MESSAGE_DATA_NOTE}`,
    'Cite a hit by channel, author and date with its link.',
  ];
  let length = lines.join('\n').length;
  for (const [i, hit] of hits.entries()) {
    const facts = [hit.channel, hit.author, formatWhen(hit.postedAt), hit.threadTs ? 'reply in a thread' : undefined, hit.edited ? 'edited' : undefined, hit.language]
      .filter(Boolean)
      .join(' · ');
    const block = [
      `[${i + 1}] ${facts} — matched: ${hit.reason}`,
      ...(hit.permalink ? [`link: ${hit.permalink}`] : []),
      `<slack_message channel="${attribute(hit.channel)}" author="${attribute(hit.author)}" date="${hit.postedAt.toISOString().slice(0, 10)}">${frameText(hit.snippet)}</slack_message>`,
    ].join('\n');
    if (length + block.length > MAX_RESULT_CHARS) {
      lines.push(`[${hits.length - i} more hit${hits.length - i === 1 ? '' : 's'} not shown: narrow the search with channel, from or since]`);
      break;
    }
    lines.push(block);
    length += block.length + 1;
  }
  return lines.join('\n');
}

/** Shorter passages when the context is nearly full. */
function snippetFor(context: ToolContext): number {
  const left = context.tokensLeft();
  if (left < 3_000) return 200;
  if (left < 8_000) return 300;
  return 500;
}

function shortQuery(query: string): string {
  const short = query.trim().replace(/\s+/g, ' ');
  return `'${short.length > 40 ? `${short.slice(0, 39)}…` : short}'`;
}
