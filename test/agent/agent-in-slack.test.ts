/**
 * The hardened loop as users meet it: the real app, the fake Slack and the fake model. The iteration cap still ends
 * in an answer (with a note), a model without tool calling is driven through ReAct, and a thread too long for the
 * endpoint is trimmed and answered.
 */
import { describe, expect, it } from 'vitest';
import { ANA, BEN, CHANNEL, useHarness } from '../support/harness';
import { listRunSteps, listThreadRuns } from '../../src/store/run-store';
import { findThread } from '../../src/store/thread-store';
import type { ChatRequestBody } from '../fakes/fake-openai';

const h = useHarness({ env: { MAX_ITERATIONS: '3' } });

async function finishedRun(threadTs: string) {
  const thread = await findThread(h.database.db, CHANNEL, threadTs);
  await expect.poll(async () => (await listThreadRuns(h.database.db, thread!.id)).at(-1)?.status).not.toMatch(/pending|running/);
  return (await listThreadRuns(h.database.db, thread!.id)).at(-1)!;
}

const messagesOf = (request: ChatRequestBody) => request.messages as Array<{ role: string; content: unknown }>;

describe('the iteration cap', () => {
  it('withdraws the tools on the last step and posts the best answer with a note', async () => {
    const skills = ['jira', 'notion', 'slack'];
    h.model.setDefault((request) =>
      request.tools
        ? { toolCalls: [{ name: 'load_skill', arguments: { name: skills[messagesOf(request).filter((m) => m.role === 'tool').length] ?? 'jira' } }] }
        : { text: 'Jira for bugs, Notion for specs.' },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> which tool for what?` });

    const [answer] = await h.answers(CHANNEL, ts);

    expect(answer).toBe('Jira for bugs, Notion for specs.\n\n_I reached my limit of 3 steps, so this answer is based on what I had read by then._');
    expect(h.model.requests.map((r) => Array.isArray(r.tools))).toEqual([true, true, false]);
    expect(await finishedRun(ts)).toMatchObject({ status: 'done', iterations: 3, error: 'iteration_cap', skillsLoaded: ['jira', 'notion'] });
  });
});

describe('a model without native tool calling', () => {
  it('is driven through ReAct to the right tool call and its answer is posted', async () => {
    h.model.rejectTools = true;
    h.model.enqueue(
      { text: 'Thought: The user wants a Jira ticket; I should read the jira skill.\nAction: load_skill\nAction Input: {"name": "jira"}' },
      { text: 'Thought: I know the format now.\nFinal Answer: Use the *Bug* template with steps to reproduce.' },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> how do I write a jira bug?` });

    expect(await h.answers(CHANNEL, ts)).toEqual(['Use the *Bug* template with steps to reproduce.']);
    const sent = messagesOf(h.model.requests.at(-1)!);
    expect(sent.filter((m) => m.role === 'system')).toHaveLength(1); // the protocol rides in the one system prompt
    const observation = sent.find((m) => m.role === 'user' && String(m.content).startsWith('Observation: '));
    expect(String(observation?.content).length).toBeGreaterThan(200); // the skill's body came back to the model
    const run = await finishedRun(ts);
    expect(run).toMatchObject({ status: 'done', strategy: 'react', skillsLoaded: ['jira'] });
    const tools = (await listRunSteps(h.database.db, run.id)).filter((s) => s.kind === 'tool');
    expect(tools).toMatchObject([{ name: 'load_skill', arguments: { name: 'jira' }, error: null }]);
  });
});

describe('a thread too long for the endpoint', () => {
  it('is trimmed — oldest history first — and answered on the one retry', async () => {
    const parent = h.slack.addMessage(CHANNEL, { user: ANA, text: `<@${h.slack.botUserId}> let us plan the offsite` });
    for (let i = 1; i <= 10; i++) {
      h.slack.addMessage(CHANNEL, {
        user: i % 2 ? BEN : ANA,
        thread_ts: parent.ts,
        text: `Idea ${i}: ${'We could rent a cabin by the lake, cook together in the evenings and hike during the day. '.repeat(30)}`,
      });
    }
    h.model.contextWindow = 9_000; // the endpoint's limit, far below what threadwise believes the window is (the tools take ~5k of it)
    h.model.enqueue({ text: 'The cabin by the lake it is.' });
    await h.mention({ threadTs: parent.ts, text: `<@${h.slack.botUserId}> so what do we pick?` });

    expect(await h.answers(CHANNEL, parent.ts)).toEqual(['The cabin by the lake it is.']);
    expect(h.model.outcomes.map((o) => o.kind)).toEqual(['rejected', 'reply']);
    const [first, second] = h.model.requests.map(messagesOf);
    expect(second!.length).toBeLessThan(first!.length);
    expect(second![0]!.role).toBe('system');
    expect(JSON.stringify(second!.at(-1)!.content)).toContain('so what do we pick?');
    expect(JSON.stringify(second)).toContain('Idea 10:'); // the newest history stays
    expect(JSON.stringify(second)).not.toContain('Idea 1:');
  });
});
