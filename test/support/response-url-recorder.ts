import { createServer } from 'node:http';

/** Stands in for Slack's response_url endpoint: records what slash-command handlers `respond()` with. */
export async function startResponseUrlRecorder(): Promise<{ url: string; responses: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const responses: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      responses.push(JSON.parse(body || '{}'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/commands/response`,
    responses,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
