import { inArray } from 'drizzle-orm';
import type { ChatModel } from '../core/chat';
import type { Database } from '../store/database';
import { imageDescriptions } from '../store/schema';

const DESCRIBE_PROMPT =
  'Describe this image for a colleague who cannot see it, in at most 120 words: first one sentence saying what it is ' +
  '(e.g. "A screenshot of a login form showing an error"), then every piece of text visible in it, verbatim, ' +
  'especially error messages, codes, numbers and URLs. No preamble.';

/** Stored descriptions by Slack file id. */
export async function findImageDescriptions(db: Database, slackFileIds: string[]): Promise<Map<string, string>> {
  if (slackFileIds.length === 0) return new Map();
  const rows = await db.select().from(imageDescriptions).where(inArray(imageDescriptions.slackFileId, slackFileIds));
  return new Map(rows.map((row) => [row.slackFileId, row.description]));
}

/**
 * Has the model describe an image once — a caption plus any text in it — and stores it, so later turns and models
 * without vision get the words instead of the pixels.
 */
export async function describeImage(
  db: Database,
  model: ChatModel,
  image: { slackFileId: string; dataUrl: string },
  signal?: AbortSignal,
): Promise<string | undefined> {
  const response = await model.complete({
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: DESCRIBE_PROMPT },
          { type: 'image', url: image.dataUrl, detail: 'auto' },
        ],
      },
    ],
    signal,
  });
  const description = response.text?.trim();
  if (!description) return undefined;
  await db
    .insert(imageDescriptions)
    .values({ slackFileId: image.slackFileId, description, model: model.name })
    .onConflictDoNothing();
  return description;
}
