/** `npm run chat -- [--file PATH]… [--json] ["question"]`, parsed with node:util's parseArgs. */
import { parseArgs } from 'node:util';
import { codeOf, messageOf, ThreadwiseError, type ThreadwiseErrorOptions } from '../core/errors';

export interface ChatArgs {
  files: string[];
  json: boolean;
  /** With a question: one turn. Without: an interactive conversation. */
  question?: string;
  help: boolean;
}

export const CHAT_USAGE = `Usage: npm run chat -- [--file PATH]… [--json] ["question"]

Talk to threadwise in this terminal, without Slack. Needs OPENAI_API_KEY (or OPENAI_BASE_URL) and optionally OPENAI_MODEL.

  --file, -f PATH   add a file to the conversation (repeat for more): PDF, DOCX, PPTX, XLSX, CSV, HTML, text, images
  --json            print the run as JSON (answer, tool calls, tokens) instead of the answer
  --help, -h        show this

With a question: one answer on stdout, status on stderr, exit 0 (non-zero with a sentence on failure).
Without one: a conversation; type /help in it for its commands (/file, /files, /skills, /reset, /exit).`;

/** A command line that cannot be run; the message is the sentence to show. */
export class ChatUsageError extends ThreadwiseError<'chat_usage'> {
  override readonly name = 'ChatUsageError';
  constructor(message: string, options?: ThreadwiseErrorOptions) {
    super('chat_usage', message, options);
  }
}

export function parseChatArgs(argv: string[]): ChatArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        file: { type: 'string', short: 'f', multiple: true },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new ChatUsageError(describeParseError(error), { cause: error });
  }
  const question = parsed.positionals.join(' ').trim();
  return {
    files: parsed.values.file ?? [],
    json: parsed.values.json ?? false,
    help: parsed.values.help ?? false,
    ...(question ? { question } : {}),
  };
}

function describeParseError(error: unknown): string {
  const code = codeOf(error);
  const message = messageOf(error);
  const option = /'(-{1,2}[\w-]+)/.exec(message)?.[1] ?? 'an option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `there is no option ${option} (npm run chat -- --help lists them); a question that starts with "-" goes last, after --.`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /does not take/.test(message) ? `${option} takes no value.` : `${option} needs a value, e.g. --file ./report.pdf.`;
  }
  return `${message.replace(/\.$/, '')}; npm run chat -- --help shows how to call it.`;
}
