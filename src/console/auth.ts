/**
 * Who may use the console. With CONSOLE_TOKEN: a sign-in page, then a session cookie signed with the token
 * (HttpOnly, SameSite=Strict, Secure behind HTTPS), so any replica can check it and rotating the token signs everyone
 * out. Without a token the console is open, which config allows only on loopback; there it answers only requests
 * addressed to a loopback name, so a web page cannot reach it through DNS rebinding. The one form that writes carries
 * a CSRF token bound to the session.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';

export const SESSION_COOKIE = 'threadwise_console';
/** A session lasts a working day; then the operator signs in again. */
const SESSION_MS = 12 * 60 * 60_000;

export interface ConsoleAuth {
  /** Whether a token is needed at all. */
  required: boolean;
  /** Constant-time: a wrong token of the right length takes as long as a right one. */
  tokenMatches(given: string): boolean;
  newSession(now: number): { value: string; maxAgeSeconds: number };
  sessionValid(value: string | undefined, now: number): boolean;
  csrfToken(session: string | undefined): string;
  csrfValid(session: string | undefined, given: string | undefined): boolean;
}

export function createConsoleAuth(token: string | undefined): ConsoleAuth {
  // Without a token the CSRF tokens are signed with a secret of this process: nothing else can forge one.
  const secret = token ?? randomBytes(32).toString('hex');
  const sign = (purpose: string) => createHmac('sha256', secret).update(purpose).digest('base64url');
  return {
    required: token !== undefined,
    tokenMatches: (given) => token !== undefined && sameSecret(given, token),
    newSession(now) {
      const expires = now + SESSION_MS;
      return { value: `${expires}.${sign(`session.${expires}`)}`, maxAgeSeconds: SESSION_MS / 1000 };
    },
    sessionValid(value, now) {
      if (!value) return false;
      const [expires, signature] = value.split('.');
      if (!expires || !signature || !/^\d+$/.test(expires) || Number(expires) <= now) return false;
      return sameSecret(signature, sign(`session.${expires}`));
    },
    csrfToken: (session) => sign(`csrf.${session ?? 'open'}`),
    csrfValid: (session, given) => given !== undefined && sameSecret(given, sign(`csrf.${session ?? 'open'}`)),
  };
}

/** Compares digests, so neither the length nor the first differing byte of the secret leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac('sha256', 'threadwise-compare').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether the request reached us over HTTPS: the scheme, or X-Forwarded-Proto from a proxy the operator trusts. */
export function isSecureRequest(c: Context, trustProxy: boolean): boolean {
  if (new URL(c.req.url).protocol === 'https:') return true;
  return trustProxy && c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

const LOOPBACK_NAMES = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Guards every page but sign-in. Open console: only loopback Host headers. With a token: a valid session, else the
 * sign-in page (a 303 for pages, 401 for the event stream, CSV and a run's posted charts and files).
 */
export function requireSession(auth: ConsoleAuth, now: () => number): MiddlewareHandler {
  return async (c, next) => {
    if (!auth.required) {
      if (!LOOPBACK_NAMES.test(c.req.header('host') ?? '')) return c.text('This console answers only on localhost.', 403);
      return next();
    }
    const path = new URL(c.req.url).pathname;
    if (path === '/sign-in' || path === '/console.css' || path === '/live.js') return next();
    if (auth.sessionValid(getCookie(c, SESSION_COOKIE), now())) return next();
    // Pages redirect to the sign-in; what a page loads or downloads (the event stream, a CSV, a run's chart or file) cannot follow a form.
    if (c.req.method === 'GET' && !path.endsWith('.csv') && !path.endsWith('/stream') && !path.includes('/posted/')) return c.redirect(`/sign-in?next=${encodeURIComponent(path)}`, 303);
    return c.text('Sign in first.', 401);
  };
}

/** A form post from another site carries its own Origin: refuse it before the CSRF token is even looked at. */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (!origin) return true;
  try {
    return new URL(origin).host === c.req.header('host');
  } catch {
    return false;
  }
}
