/**
 * People and channels as the console shows them: by name, with the id on hover (`<span title="C0123">#incidents</span>`),
 * from the names runs resolved (slack_names). An id never met is shown as it is; a direct message says so.
 */
import { html } from 'hono/html';
import type { Fragment } from './layout';

/** Names by Slack id (users and channels). */
export type Names = ReadonlyMap<string, string>;

/** The one word for "nothing here": no model called yet, no user, no channel. */
export const NONE = '(none)';

/** "#incidents", "a direct message", or the id when no name is known: plain text, for charts and buttons. */
export function channelText(names: Names, id: string | null | undefined): string {
  if (!id) return NONE;
  const name = names.get(id);
  if (name) return `#${name}`;
  return id.startsWith('D') ? 'a direct message' : id;
}

export function personText(names: Names, id: string | null | undefined): string {
  if (!id) return NONE;
  return names.get(id) ?? id;
}

/** The channel's name with its id on hover. */
export function channelLabel(names: Names, id: string | null | undefined): Fragment {
  const text = channelText(names, id);
  return id && text !== id ? html`<span title="${id}">${text}</span>` : html`${text}`;
}

/** The person's name with their id on hover. */
export function personLabel(names: Names, id: string | null | undefined): Fragment {
  const text = personText(names, id);
  return id && text !== id ? html`<span title="${id}">${text}</span>` : html`${text}`;
}
