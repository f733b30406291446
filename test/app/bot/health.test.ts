/**
 * Socket Mode's own HTTP server on PORT: /healthz for the platform's probes, and the pages threadwise serves beside
 * it (the OAuth callback), with their headers; anything else is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHealth } from '../../../src/app/bot/health';

describe('serveHealth (Socket Mode)', () => {
  let server: Awaited<ReturnType<typeof serveHealth>>;
  const seen: string[] = [];
  beforeAll(async () => {
    server = await serveHealth(0, async () => ({ status: 200, body: { ok: true } }), {
      '/oauth/callback': async (query) => {
        seen.push(query.toString());
        return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '<h1>Connected</h1>' };
      },
    });
  });
  afterAll(() => server.close());
  const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);

  it('serves a page with its query and headers', async () => {
    const response = await get('/oauth/callback?code=c1&state=s1');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('<h1>Connected</h1>');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(seen).toEqual(['code=c1&state=s1']);
  });

  it('still answers /healthz, and 404 elsewhere', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ ok: true });
    expect((await get('/oauth/other')).status).toBe(404);
  });
});
