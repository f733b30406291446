/**
 * ThreadOutput for a Slack thread: charts and files go up through uploadFileToThread, chart blocks through
 * chat.postMessage, all into the channel and thread the run answers.
 */
import type { ThreadOutput } from '../tools/table-tools-context';
import { uploadFileToThread, type FileUploadWebApi } from './upload-file';

export interface ThreadOutputWebApi extends FileUploadWebApi {
  chat: { postMessage(args: { channel: string; thread_ts: string; text: string; blocks: unknown[] }): Promise<{ ok?: boolean; error?: string }> };
}

export function createSlackThreadOutput(options: { api: ThreadOutputWebApi; channel: string; threadTs: string; fetch?: typeof fetch }): ThreadOutput {
  const { api, channel, threadTs } = options;
  return {
    async postImage({ name, png, altText, title }) {
      const { fileId } = await uploadFileToThread(api, { channel, threadTs, filename: name, bytes: png, altText, title }, options.fetch);
      return { fileId };
    },
    async attachFile({ name, bytes, title }) {
      const { fileId } = await uploadFileToThread(api, { channel, threadTs, filename: name, bytes, title }, options.fetch);
      return { fileId };
    },
    async postBlocks({ blocks, text }) {
      await api.chat.postMessage({ channel, thread_ts: threadTs, text, blocks });
    },
  };
}
