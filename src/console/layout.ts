/**
 * The frame of every console page: landmarks, a skip link, the navigation, one stylesheet served by the console
 * itself (no CDN: it works offline). Pages are plain HTML forms and links; JavaScript only makes Live smoother.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Fragment = HtmlEscapedString | Promise<HtmlEscapedString>;

export const NAV = [
  { href: '/runs', label: 'Runs' },
  { href: '/usage', label: 'Usage' },
  { href: '/memories', label: 'Memories' },
  { href: '/live', label: 'Live' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/health', label: 'Health' },
] as const;

export function page(input: { title: string; current?: string; body: Fragment; head?: Fragment; signedIn?: boolean; csrf?: string }): Fragment {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title} · threadwise console</title>
<link rel="stylesheet" href="/console.css">
${input.head ?? ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<nav aria-label="Console">
<a href="/" class="brand">threadwise console</a>
<ul>${NAV.map((item) => html`<li><a href="${item.href}"${item.href === input.current ? html` aria-current="page"` : ''}>${item.label}</a></li>`)}</ul>
${input.signedIn ? html`<form method="post" action="/sign-out" class="sign-out"><input type="hidden" name="csrf" value="${input.csrf ?? ''}"><button type="submit">Sign out</button></form>` : ''}
</nav>
</header>
<main id="main" tabindex="-1">
<h1>${input.title}</h1>
${input.body}
</main>
</body>
</html>`;
}

/** Served at /console.css. High-contrast, visible focus, readable without it too. */
export const STYLESHEET = `
:root { font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; }
body { margin: 0; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 2; }
header { background: #1f2937; }
header nav { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1.5rem; flex-wrap: wrap; }
header a { color: #fff; } header .brand { font-weight: 700; text-decoration: none; }
header ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
header a[aria-current="page"] { text-decoration-thickness: 3px; }
.sign-out { margin-left: auto; }
main { padding: 1rem 1.5rem 3rem; max-width: 80rem; }
:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: .9rem; }
th, td { border-bottom: 1px solid #d1d5db; padding: .35rem .5rem; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; }
form.filters label, form.inline label { display: flex; flex-direction: column; font-size: .85rem; gap: .2rem; }
input, select, button { font: inherit; padding: .3rem .45rem; }
button { cursor: pointer; }
.status-failed, .status-refused { color: #b91c1c; font-weight: 600; }
.status-done { color: #166534; }
.error { color: #b91c1c; }
.ok { color: #166534; }
pre { white-space: pre-wrap; background: #f3f4f6; padding: .5rem; margin: .25rem 0; font-size: .85rem; }
ol.timeline { list-style: none; padding: 0; }
ol.timeline > li, ol.nested > li { border-left: 4px solid #9ca3af; padding: .4rem .75rem; margin: .5rem 0; background: #fafafa; }
ol.timeline li.model { border-color: #2563eb; } ol.timeline li.tool { border-color: #059669; } ol.timeline li.approval { border-color: #d97706; }
ol.nested { list-style: none; padding-left: 1.5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; }
svg text { font: 11px system-ui, sans-serif; fill: #1a1a1a; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(36rem, 1fr)); gap: 1rem; }
.charts svg { max-width: 100%; height: auto; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .25rem; }
figure.posted-chart { margin: 0 0 1rem; } figure.posted-chart img { max-width: 100%; height: auto; border: 1px solid #d1d5db; }
span[title] { text-decoration: underline dotted #9ca3af; }
.notice { background: #fef3c7; padding: .5rem .75rem; border-left: 4px solid #d97706; }
`;

/** 1234 ms → "1.2 s"; 95000 → "1 min 35 s". */
export function formatDurationMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A UTC timestamp people can read and sort: "2026-11-24 16:21:05 UTC". */
export function formatUtc(date: Date | string | null | undefined): string {
  if (!date) return '—';
  const value = typeof date === 'string' ? new Date(date) : date;
  return `${value.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A link into Slack's web client for the thread (the team id makes it open in the right workspace). */
export function slackThreadUrl(teamId: string | null | undefined, channelId: string, threadTs: string): string {
  if (teamId) return `https://app.slack.com/client/${encodeURIComponent(teamId)}/${encodeURIComponent(channelId)}/thread/${encodeURIComponent(`${channelId}-${threadTs}`)}`;
  return `https://slack.com/app_redirect?channel=${encodeURIComponent(channelId)}`;
}
