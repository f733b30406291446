/** The sign-in form: the token goes in a POST body, never in a URL. */
import { html } from 'hono/html';
import type { Fragment } from '../layout';

export function signInBody(input: { next: string; failed: boolean }): Fragment {
  return html`${input.failed ? html`<p class="error" role="alert">That token is not right. Nothing was signed in.</p>` : ''}
<form method="post" action="/sign-in">
<input type="hidden" name="next" value="${input.next}">
<p><label for="token">Console token (CONSOLE_TOKEN)</label><br>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus size="40"></p>
<button type="submit">Sign in</button>
</form>`;
}
