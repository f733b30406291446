/**
 * "What did it do in this thread, and what did it cost?" — answered from the database alone, with the two queries
 * the README gives operators: one row per run with its totals, one row per model or tool call with arguments,
 * result size, tokens, duration and error. A sub-agent's calls are steps of the run and count in its totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../src/store/database';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import type { ChatRequestBody } from '../fakes/fake-openai';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const hasToolResults = (request: ChatRequestBody) => request.messages.some((m) => m.role === 'tool');

describe('the run records', () => {
  it('tell an operator what a run did and what it cost, sub-agent included', async () => {
    const policy = h.slack.addFile({ name: 'travel-policy.txt', mimetype: 'text/plain', content: Buffer.from('Travel: at most two trips a quarter, economy only.\n') });
    // Main loop: ask the file reader and load a skill in one round, then answer. The reader (no tools) answers from the file.
    h.model.setDefault((request) =>
      !request.tools
        ? { text: 'At most two trips a quarter, economy only [travel-policy.txt].', usage: { prompt_tokens: 300, completion_tokens: 25 } }
        : hasToolResults(request)
          ? { text: 'Two trips a quarter, economy. Filed as a Jira task.', usage: { prompt_tokens: 1_400, completion_tokens: 30 } }
          : {
              toolCalls: [
                { name: 'ask_file', arguments: { id: 'F1', question: 'How many trips are allowed?' } },
                { name: 'load_skill', arguments: { name: 'jira' } },
              ],
              usage: { prompt_tokens: 1_000, completion_tokens: 40 },
            },
    );
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what does the travel policy allow? file it in jira`, files: [policy] });
    await h.answers(CHANNEL, ts);

    // The README's first query: one row per run in the thread (its end is recorded just after the answer).
    const runsOfThread = async () =>
      rowsOf<Record<string, unknown>>(
        await h.database.db.execute(sql`
          select r.id, r.status, r.model, r.strategy, r.iterations, r.input_tokens, r.output_tokens, r.skills_loaded, r.activity
          from runs r join threads t on t.id = r.thread_id
          where t.channel_id = ${CHANNEL} and t.thread_ts = ${ts} order by r.id`),
      );
    await expect.poll(async () => (await runsOfThread())[0]?.status).toBe('done');
    const runs = await runsOfThread();
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    // The README's second query: every call of that run.
    const steps = rowsOf<Record<string, unknown>>(
      await h.database.db.execute(sql`
        select kind, name, arguments, result_chars, input_tokens, output_tokens, duration_ms, error
        from run_steps where run_id = ${run.id} order by id`),
    );

    const main = steps.filter((s) => s.kind === 'model');
    const reader = steps.filter((s) => s.kind === 'subagent_model');
    const tools = steps.filter((s) => s.kind === 'tool');
    expect(main.map((s) => [Number(s.input_tokens), Number(s.output_tokens)])).toEqual([
      [1_000, 40],
      [1_400, 30],
    ]);
    expect(reader.length).toBeGreaterThanOrEqual(1);
    // The two calls run at once and each is recorded as it finishes: the order of their rows is not the call order.
    expect(tools.map((s) => [s.name, s.arguments]).sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      ['ask_file', { id: 'F1', question: 'How many trips are allowed?' }],
      ['load_skill', { name: 'jira' }],
    ]);
    expect(tools.every((s) => Number(s.result_chars) > 0 && s.error === null && Number(s.duration_ms) >= 0)).toBe(true);

    const sum = (key: string) => steps.reduce((total, s) => total + Number(s[key] ?? 0), 0);
    expect(run).toMatchObject({ status: 'done', model: 'gpt-4o-mini', strategy: 'function_calling', iterations: 2, skills_loaded: ['jira'] });
    expect(Number(run.input_tokens)).toBe(sum('input_tokens'));
    expect(Number(run.output_tokens)).toBe(sum('output_tokens'));
    expect(Number(run.input_tokens)).toBeGreaterThanOrEqual(1_000 + 1_400 + 300);
  });
});
