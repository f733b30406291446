import type { SkillSummary } from './types';

/**
 * The `/ask skills` reply, in Slack mrkdwn: one bullet per skill with its description and, when given, when to
 * use it. Descriptions are operator-written text, so Slack's control characters are escaped.
 */
export function formatSkillList(skills: SkillSummary[]): string {
  if (skills.length === 0) {
    return 'No skills are installed. A skill is a folder under the skills folder with a `SKILL.md` (front matter `name` and `description`).';
  }
  const sorted = [...skills].sort((a, b) => a.name.localeCompare(b.name));
  const heading =
    sorted.length === 1
      ? '*1 skill* — loaded only when a task needs it:'
      : `*${sorted.length} skills* — each loaded only when a task needs it:`;
  const lines = sorted.map((skill) => {
    const when = skill.whenToUse ? ` _When: ${escapeMrkdwn(skill.whenToUse)}_` : '';
    return `• \`${skill.name}\` — ${escapeMrkdwn(skill.description)}${when}`;
  });
  return [heading, ...lines].join('\n');
}

/** Slack reads &, < and > as markup (links, mentions); everything else is safe as it is. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
