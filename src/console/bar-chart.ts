/**
 * A bar chart as server-rendered SVG: no script, no library, no CDN. Accessible: role="img" with a title and a
 * description, and each bar's value in its own <title> (the table beside the chart has the same numbers).
 */
import { html } from 'hono/html';
import type { Fragment } from './layout';
import { NONE } from './names';

export interface Bar {
  label: string;
  value: number;
  /** Said on hover besides the label (a channel's or person's id). */
  hint?: string;
}

export function barChart(input: { title: string; description: string; bars: readonly Bar[]; format: (value: number) => string; id: string }): Fragment {
  const width = 560;
  const rowHeight = 20;
  const labelWidth = 170;
  const valueWidth = 90;
  const bars = input.bars.slice(0, 31);
  const height = Math.max(1, bars.length) * rowHeight + 10;
  const max = Math.max(...bars.map((bar) => bar.value), 0);
  const scale = (value: number) => (max > 0 ? (value / max) * (width - labelWidth - valueWidth) : 0);
  // The caption comes first: it says what the chart is before the eye meets the bars.
  return html`<figure>
<figcaption>${input.title}</figcaption>
<svg role="img" aria-labelledby="${input.id}-title ${input.id}-desc" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<title id="${input.id}-title">${input.title}</title>
<desc id="${input.id}-desc">${input.description}</desc>
${bars.length === 0 ? html`<text x="0" y="15">No data in this range.</text>` : ''}
${bars.map(
  (bar, i) => html`<g transform="translate(0 ${i * rowHeight + 5})">
<text x="${labelWidth - 6}" y="13" text-anchor="end">${truncate(bar.label, 26)}</text>
<rect x="${labelWidth}" y="2" height="${rowHeight - 6}" width="${scale(bar.value).toFixed(1)}" fill="#2563eb"><title>${bar.label || NONE}${bar.hint ? ` (${bar.hint})` : ''}: ${input.format(bar.value)}</title></rect>
<text x="${(labelWidth + scale(bar.value) + 4).toFixed(1)}" y="13">${input.format(bar.value)}</text>
</g>`,
)}
</svg>
</figure>`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text || NONE;
}
