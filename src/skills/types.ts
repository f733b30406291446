/** A skill as the prompt sees it: only the name and the description (the body comes through load_skill). */
export interface SkillSummary {
  name: string;
  description: string;
  /** Optional hint on when to use it, from front matter `when_to_use`. */
  whenToUse?: string;
}

/** A skill that passed validation, as the library holds it between reads. */
export interface LoadedSkill {
  summary: SkillSummary;
  /** The folder name, which validation guarantees equals summary.name. */
  folder: string;
  /** Absolute path of the skill's folder. */
  dir: string;
  /** SKILL.md without its front matter, trimmed. */
  body: string;
}

/**
 * What SkillLibrary.read returns. Structurally a SkillReader result; `files` is only set for a skill's body and
 * lists the further files of its folder ("jira/templates/bug.md") so load_skill can offer them.
 */
export interface SkillDocument {
  name: string;
  /** Relative to the skills folder, with forward slashes: "jira/SKILL.md", "jira/templates/bug.md". */
  path: string;
  content: string;
  files?: string[];
}
