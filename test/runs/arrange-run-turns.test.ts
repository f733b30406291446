/**
 * Which turns a run answers: its own messages last, after answers the bot posted while they waited; questions
 * newer than its own are left to the next run.
 */
import { describe, expect, it } from 'vitest';
import { arrangeRunTurns } from '../../src/runs/arrange-run-turns';
import { findPostedAnswer } from '../../src/runs/find-posted-answer';
import { feedbackBlock } from '../../src/slack/feedback-block';

const turn = (role: 'user' | 'assistant', ts: string, text: string) => ({ role, ts, text });
const texts = (turns: Array<{ text: string }> | undefined) => turns?.map((t) => t.text);

describe('arrangeRunTurns', () => {
  const thread = [
    turn('user', '100.000001', 'Q1: why is the build red?'),
    turn('user', '100.000002', 'M1: also, which job?'), // arrived while the first answer was being written
    turn('user', '100.000003', 'M2: and since when?'),
    turn('assistant', '100.000004', 'A1: the lint job fails.'),
    turn('user', '100.000005', 'Q3: thanks, one more thing'), // the run after next
  ];

  it('answers the messages folded into a run after the answer posted while they waited', () => {
    const arranged = arrangeRunTurns(thread, { triggerTs: '100.000002', foldedTs: ['100.000003'] });
    expect(texts(arranged)).toEqual(['Q1: why is the build red?', 'A1: the lint job fails.', 'M1: also, which job?', 'M2: and since when?']);
  });

  it('leaves newer questions to the next run, even when the thread already shows them', () => {
    // The run started late: by the time it read the thread, the next question (a run of its own) was there too.
    const early = [turn('user', '100.000001', 'Q1: why is the build red?'), turn('user', '100.000002', 'Q2: and the deploy?')];
    expect(texts(arrangeRunTurns(early, { triggerTs: '100.000001', foldedTs: [] }))).toEqual(['Q1: why is the build red?']);
  });

  it('keeps the order of an ordinary thread, where the question is the newest message', () => {
    const arranged = arrangeRunTurns(thread, { triggerTs: '100.000005', foldedTs: [] });
    expect(texts(arranged)).toEqual(texts(thread));
  });

  it('says there is nothing to answer when the run’s messages were deleted', () => {
    expect(arrangeRunTurns(thread, { triggerTs: '100.000009', foldedTs: [] })).toBeUndefined();
  });
});

describe('findPostedAnswer', () => {
  const bot = { userId: 'U0BOT', botId: 'B0BOT', name: 'threadwise' };

  it('finds the answer a run posted before it was interrupted, by the run’s feedback buttons', () => {
    const messages = [
      { ts: '1.1', user: 'U0ANA', text: 'question' },
      { ts: '1.2', user: 'U0BOT', bot_id: 'B0BOT', text: 'an earlier answer', blocks: [feedbackBlock(6)] },
      { ts: '1.3', user: 'U0BOT', bot_id: 'B0BOT', text: 'this run’s answer', blocks: [{ type: 'markdown', text: '…' }, feedbackBlock(7)] },
    ];
    expect(findPostedAnswer(messages, 7, bot)).toEqual(['1.3']);
    expect(findPostedAnswer(messages, 8, bot)).toEqual([]);
  });

  it('ignores look-alike blocks that someone else posted', () => {
    expect(findPostedAnswer([{ ts: '1.4', user: 'U0ANA', blocks: [feedbackBlock(7)] } as never], 7, bot)).toEqual([]);
  });
});
