/** A message that may get an answer, as the Slack edge decided it: what intake admits into a run. */
export interface Trigger {
  channelId: string;
  threadTs: string;
  messageTs: string;
  userId: string;
  teamId?: string;
  /** A DM, or a thread whose first message mentions the bot: follow-ups there need no mention. */
  engages: boolean;
  /** Only answer when the thread is already engaged (a follow-up without a mention). */
  needsEngagedThread: boolean;
  hasFiles: boolean;
  /** The message's first line, mentions removed (`questionLine`): what the console lists the run by. */
  question?: string;
}

/** "<@U123> why is the build red?\nlogs below" → "why is the build red?" (at most 200 characters). */
export function questionLine(text: string | undefined): string | undefined {
  const line = (text ?? '')
    .replace(/<@[A-Z0-9]+(\|[^>]*)?>/g, '')
    .split('\n')
    .map((part) => part.trim())
    .find(Boolean);
  if (!line) return undefined;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
