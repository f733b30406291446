/** A skill as the prompt sees it: only the name and the description (the body comes through load_skill). */
export interface SkillSummary {
  name: string;
  description: string;
  /** Optional hint on when to use it, from front matter `when_to_use`. */
  whenToUse?: string;
}
