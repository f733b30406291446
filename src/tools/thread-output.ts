/**
 * Posting into the thread a run answers: charts, files and Block Kit blocks. Slack implements it with the bot's
 * Web API client (src/slack/slack-thread-output.ts), the terminal chat with a folder (src/terminal/
 * folder-thread-output.ts); the run gets it from its answer channel.
 */

/** What a posted file became: its Slack file id, or where it was written (a path the chat prints). */
interface PostedFile {
  fileId?: string;
  location?: string;
}

export interface ThreadOutput {
  /** Posts an image (a chart) into the thread; returns the posted file's id where the surface has one. */
  postImage(image: { name: string; png: Uint8Array; altText: string; title?: string }): Promise<PostedFile>;
  /** Uploads a file into the thread. */
  attachFile(file: { name: string; bytes: Uint8Array; mimeType: string; title?: string }): Promise<PostedFile>;
  /**
   * Posts Block Kit blocks into the thread (Slack's chart and table blocks). Optional: without it every chart is a
   * PNG and a table is text, which is also what the terminal chat and surfaces without blocks get.
   */
  postBlocks?(message: { blocks: unknown[]; text: string }): Promise<void>;
}
