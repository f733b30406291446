/**
 * The optional LLM judge (`npm run eval -- --judge`): a free-text criterion a string match cannot check ("explains
 * why the build fails"), graded by a model — the configured one, or EVAL_JUDGE_MODEL. Its verdicts are opinions, so
 * the report marks them as the judge's, apart from the checked criteria.
 */
import type { ChatModel } from '../../src/core/chat';

export interface Verdict {
  pass: boolean;
  reason: string;
}

const INSTRUCTIONS =
  'You grade one answer of an assistant against one criterion. Judge only the criterion, strictly, from the answer as written. ' +
  'Reply with JSON only, no prose around it: {"pass": true or false, "reason": "one sentence saying why"}.';

export async function judgeAnswer(model: ChatModel, input: { criterion: string; question: string; answer: string }): Promise<Verdict> {
  const response = await model.complete({
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      {
        role: 'user',
        content: `<criterion>\n${input.criterion}\n</criterion>\n<question>\n${input.question}\n</question>\n<answer>\n${input.answer}\n</answer>`,
      },
    ],
  });
  return parseVerdict(response.text ?? '');
}

/** The judge's JSON, wherever it put it; anything else is a failed verdict saying what came back. */
function parseVerdict(text: string): Verdict {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const parsed = JSON.parse(json ?? '') as { pass?: unknown; reason?: unknown };
    if (typeof parsed.pass === 'boolean') return { pass: parsed.pass, reason: typeof parsed.reason === 'string' && parsed.reason.trim() ? parsed.reason.trim() : '(no reason given)' };
  } catch {
    // falls through to the sentence below
  }
  return { pass: false, reason: `the judge did not reply with a verdict (it said: "${text.trim().slice(0, 120)}")` };
}
