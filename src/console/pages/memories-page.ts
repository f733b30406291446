/** Memories: what people asked threadwise to remember (remember / forget), newest first, with who and where. */
import { html } from 'hono/html';
import type { Memory } from '../../store/memory-store';
import type { Fragment } from '../layout';
import { channelLabel, personLabel, type Names } from '../names';

export function memoriesBody(memories: readonly Memory[], names: Names): Fragment {
  if (memories.length === 0) {
    return html`<p>No memories yet. People add them by asking threadwise to remember something ("@threadwise remember that …").</p>`;
  }
  return html`<p>Newest first. A channel memory goes into every request in its channel; a personal one into its author's requests in a conversation that is theirs alone. Each can be forgotten in Slack (the Forget button, or App Home).</p>
<table>
<caption>${memories.length} ${memories.length === 1 ? 'memory' : 'memories'}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">For</th><th scope="col">Asked by</th><th scope="col">Saved (UTC)</th><th scope="col">Text</th></tr></thead>
<tbody>${memories.map(
    (memory) => html`<tr><td>M${memory.id}</td><td>${memory.scope === 'personal' ? html`its author only (asked in ${channelLabel(names, memory.channelId)})` : channelLabel(names, memory.channelId)}</td><td>${personLabel(names, memory.authorId)}</td><td>${memory.createdAt.toISOString().slice(0, 16).replace('T', ' ')}</td><td>${memory.text}</td></tr>`,
  )}</tbody>
</table>`;
}
