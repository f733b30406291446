/**
 * An HTTP proxy in front of the fake Slack that can hold back the reply to a call it has already forwarded: Slack
 * did the work (the answer is in the thread), the bot never hears back. Kill the bot then, and it died after
 * posting but before recording that it posted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, readBody } from '../../fakes/http';

export interface HoldingProxy {
  /** The bot's SLACK_API_URL. */
  apiUrl: string;
  /** From now on, replies to requests whose body contains `marker` are never sent. */
  holdRepliesContaining(marker: string): void;
  /** Requests whose reply is being held. */
  held: number;
  close(): Promise<void>;
}

export async function startHoldingProxy(targetOrigin: string): Promise<HoldingProxy> {
  let marker: string | undefined;
  const hanging: ServerResponse[] = [];
  const proxy = await listen(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host' && entry[0] !== 'content-length'),
    );
    const reply = await fetch(`${targetOrigin}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : new Uint8Array(body) });
    const replyBody = Buffer.from(await reply.arrayBuffer());
    if (marker && body.toString('utf8').includes(marker)) {
      hanging.push(res);
      state.held += 1;
      return;
    }
    res.writeHead(reply.status, Object.fromEntries([...reply.headers.entries()].filter(([name]) => name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'content-length')));
    res.end(replyBody);
  }, 'holding-proxy');
  const state: HoldingProxy = {
    apiUrl: `${proxy.origin}/api/`,
    holdRepliesContaining(text) {
      marker = text;
    },
    held: 0,
    async close() {
      for (const res of hanging) res.destroy();
      await proxy.close();
    },
  };
  return state;
}
