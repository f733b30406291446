/**
 * Tools whose calls wait for a person: the loop stops before running them and hands back everything needed to
 * carry on; carried on with a decision, an approved call runs exactly once and a denied or expired one never does,
 * and the model reads why. Driven through the real openai binding against the fake OpenAI server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgentTurn } from '../../src/agent/run-agent-turn';
import type { ApprovalDecision } from '../../src/core/approval';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai';
import { defineTool, fakeModel, lookupTool, loopInput, toolResultsIn } from './loop-fixtures';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: 'sk-approval-test' });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A ticket tracker's create_issue: every call needs approval. */
function createIssueTool() {
  const created: string[] = [];
  const tool = defineTool({
    name: 'tracker__create_issue',
    description: 'Creates an issue.',
    parameters: z.object({ summary: z.string() }),
    describeProgress: () => 'creating an issue…',
    approval: (args) => ({ tool: 'tracker__create_issue', server: 'tracker', action: 'create_issue', arguments: args }),
    execute: async ({ summary }) => {
      created.push(summary);
      return `created PROJ-${created.length}: ${summary}`;
    },
  });
  return { tool, created };
}

const approvedOnce = (by = 'Ana') => {
  const decision = { status: 'approved' as const, by, at: new Date('2026-11-24T14:02:00Z'), claims: 0, claim: async () => decision.claims++ === 0 };
  return decision satisfies ApprovalDecision;
};

describe('a call that needs approval', () => {
  it('stops the loop before it runs, with the other calls of the round done and the turn ready to carry on', async () => {
    const { tool, created } = createIssueTool();
    const { tool: lookup, calls } = lookupTool({ Q3: '4.2 M' });
    fake.enqueue({
      toolCalls: [
        { name: 'lookup', arguments: { key: 'Q3' } },
        { name: 'tracker__create_issue', arguments: { summary: 'Q3 figure is wrong' } },
      ],
    });
    const { input } = loopInput({ model: fakeModel(fake), tools: [tool, lookup] });
    const result = await runAgentTurn(input);

    expect(result.stop).toBe('awaiting_approval');
    expect(created).toEqual([]);
    expect(calls).toEqual([{ key: 'Q3' }]);
    expect(result.awaiting?.calls).toEqual([
      { callId: expect.any(String), prompt: { tool: 'tracker__create_issue', server: 'tracker', action: 'create_issue', arguments: { summary: 'Q3 figure is wrong' } } },
    ]);
    const turn = result.awaiting!.turn;
    expect(turn.calls.map((call) => call.name)).toEqual(['tracker__create_issue']);
    expect(turn.messages.at(-1)).toEqual({ role: 'tool', toolCallId: expect.any(String), content: '4.2 M' });
    expect(fake.requests).toHaveLength(1);
  });

  it('runs once when approved, and the model reads its result', async () => {
    const { tool, created } = createIssueTool();
    fake.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { summary: 'Login fails' } }] });
    const first = await runAgentTurn(loopInput({ model: fakeModel(fake), tools: [tool] }).input);
    const callId = first.awaiting!.calls[0]!.callId;

    fake.enqueue({ text: 'Filed as PROJ-1.' });
    const decision = approvedOnce();
    const resumed = await runAgentTurn(
      loopInput({ model: fakeModel(fake), tools: [tool], resume: first.awaiting!.turn, decisions: new Map([[callId, decision]]) }).input,
    );

    expect(resumed).toMatchObject({ stop: 'answered', answer: 'Filed as PROJ-1.' });
    expect(created).toEqual(['Login fails']);
    expect(decision.claims).toBe(1);
    expect(toolResultsIn(fake.requests[1]!)).toEqual(['created PROJ-1: Login fails']);
  });

  it('is not run when denied; the model is told who denied it', async () => {
    const { tool, created } = createIssueTool();
    fake.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { summary: 'Login fails' } }] });
    const first = await runAgentTurn(loopInput({ model: fakeModel(fake), tools: [tool] }).input);
    const callId = first.awaiting!.calls[0]!.callId;

    fake.enqueue({ text: 'Understood, I did not file it.' });
    const denied: ApprovalDecision = { status: 'denied', by: 'Bob', at: new Date('2026-11-24T14:02:00Z') };
    const resumed = await runAgentTurn(
      loopInput({ model: fakeModel(fake), tools: [tool], resume: first.awaiting!.turn, decisions: new Map([[callId, denied]]), timeZone: 'UTC' }).input,
    );

    expect(resumed.stop).toBe('answered');
    expect(created).toEqual([]);
    expect(toolResultsIn(fake.requests[1]!)).toEqual([
      'Error: Bob denied this call to tracker__create_issue at 14:02 UTC, so it was not run. Answer without it: say what you would have done, and do not ask for the same call again unless they ask you to.',
    ]);
    expect(resumed.toolCalls).toEqual([{ name: 'tracker__create_issue', args: { summary: 'Login fails' }, error: expect.stringContaining('Bob denied') }]);
  });

  it('is not run when nobody decided in time', async () => {
    const { tool, created } = createIssueTool();
    fake.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { summary: 'Login fails' } }] });
    const first = await runAgentTurn(loopInput({ model: fakeModel(fake), tools: [tool] }).input);
    fake.enqueue({ text: 'The request expired.' });
    const expired: ApprovalDecision = { status: 'expired', at: new Date(), afterMinutes: 60 };
    await runAgentTurn(
      loopInput({ model: fakeModel(fake), tools: [tool], resume: first.awaiting!.turn, decisions: new Map([[first.awaiting!.calls[0]!.callId, expired]]) }).input,
    );
    expect(created).toEqual([]);
    expect(toolResultsIn(fake.requests[1]!)[0]).toMatch(/^Error: Nobody approved this call to tracker__create_issue within 60 minutes/);
  });

  it('is not run a second time when an earlier attempt claimed it and died', async () => {
    const { tool, created } = createIssueTool();
    fake.enqueue({ toolCalls: [{ name: 'tracker__create_issue', arguments: { summary: 'Login fails' } }] });
    const first = await runAgentTurn(loopInput({ model: fakeModel(fake), tools: [tool] }).input);
    const decision = approvedOnce();
    await decision.claim(); // the attempt that died had claimed it

    fake.enqueue({ text: 'Please check the tracker.' });
    await runAgentTurn(
      loopInput({ model: fakeModel(fake), tools: [tool], resume: first.awaiting!.turn, decisions: new Map([[first.awaiting!.calls[0]!.callId, decision]]) }).input,
    );
    expect(created).toEqual([]);
    expect(toolResultsIn(fake.requests[1]!)[0]).toMatch(/whether it took effect is unknown/);
  });

  it('never stops a tool without an approval prompt', async () => {
    const { tool: lookup, calls } = lookupTool({ Q3: '4.2 M' });
    fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: { key: 'Q3' } }] }, { text: 'Q3 was 4.2 M.' });
    const result = await runAgentTurn(loopInput({ model: fakeModel(fake), tools: [lookup] }).input);
    expect(result.stop).toBe('answered');
    expect(calls).toHaveLength(1);
  });
});
