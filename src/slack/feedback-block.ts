/** The action id Bolt routes feedback clicks by. */
export const FEEDBACK_ACTION_ID = 'threadwise_feedback';

/** 👍/👎 under an answer (Slack's feedback_buttons in a context_actions block); the value carries the run id. */
export function feedbackBlock(runId: number) {
  return {
    type: 'context_actions',
    block_id: `feedback_${runId}`,
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION_ID,
        positive_button: { text: { type: 'plain_text', text: '👍' }, accessibility_label: 'This answer helped', value: `positive:${runId}` },
        negative_button: { text: { type: 'plain_text', text: '👎' }, accessibility_label: 'This answer did not help', value: `negative:${runId}` },
      },
    ],
  };
}

export function parseFeedbackValue(value: string): { value: 'positive' | 'negative'; runId: number } | undefined {
  const match = /^(positive|negative):(\d+)$/.exec(value);
  return match ? { value: match[1] as 'positive' | 'negative', runId: Number(match[2]) } : undefined;
}
