/**
 * The console's pages as rendered HTML, without a server: names instead of ids (the id on hover), file names, the
 * running run's current step in words, captions above charts, one word for nothing, approval waits timed.
 */
import { describe, expect, it } from 'vitest';
import type { RunDetail, RunListRow } from '../../src/store/console-queries';
import type { listRunsInProgress } from '../../src/store/console-queries';
import type { UsageRow } from '../../src/store/usage-store';
import { runBody } from '../../src/console/pages/run-page';
import { runsBody } from '../../src/console/pages/runs-page';
import { liveRows } from '../../src/console/pages/live-page';
import { usageBody } from '../../src/console/pages/usage-page';
import { barChart } from '../../src/console/bar-chart';
import { describeRunNow, formatElapsed } from '../../src/console/run-now';
import { channelLabel, personLabel } from '../../src/console/names';

const NAMES = new Map([
  ['C0GENERAL', 'general'],
  ['U0ANA', 'Ana'],
  ['U0BEN', 'Ben'],
]);
const T0 = new Date('2026-11-24T16:21:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const text = async (fragment: unknown) => String(await fragment);

type Detail = RunDetail;
type StepRow = Detail['steps'][number];
type ApprovalRow = Detail['approvals'][number];

function detail(overrides: { run?: Partial<Detail['run']>; steps?: Array<Partial<StepRow>>; approvals?: Array<Partial<ApprovalRow>>; now?: Date } = {}): Detail {
  const run: Detail['run'] = {
    id: 7,
    threadId: 1,
    status: 'done',
    triggerTs: '1.1',
    triggerUserId: 'U0ANA',
    teamId: 'T0',
    channelId: 'C0GENERAL',
    question: 'what changed in release 4.2?',
    answer: 'Release 4.2 fixed the login loop.',
    costUsd: 0.001,
    imagesShown: [],
    foldedTs: [],
    model: 'gpt-4o-mini',
    strategy: null,
    iterations: 2,
    inputTokens: 3_500,
    outputTokens: 105,
    skillsLoaded: [],
    activity: null,
    answerTs: ['1.2'],
    draftTs: [],
    statusMessageTs: null,
    parkedState: null,
    cancelRequested: false,
    currentStep: null,
    currentStepAt: null,
    error: null,
    attempts: 1,
    leaseOwner: null,
    leaseExpiresAt: null,
    createdAt: T0,
    startedAt: T0,
    finishedAt: at(5),
    ...overrides.run,
  };
  const step = (s: Partial<StepRow>, i: number): StepRow => ({
    id: i + 1,
    runId: 7,
    kind: 'model',
    name: 'gpt-4o-mini',
    iteration: 1,
    arguments: null,
    resultChars: null,
    inputTokens: null,
    outputTokens: null,
    durationMs: 10,
    error: null,
    startedAt: T0,
    resultPreview: null,
    createdAt: T0,
    ...s,
  });
  const approval = (a: Partial<ApprovalRow>, i: number): ApprovalRow => ({
    id: i + 1,
    runId: 7,
    callId: 'call-1',
    tool: 'tracker__create_issue',
    server: 'tracker',
    action: 'create_issue',
    arguments: { title: 'Login loop' },
    hints: null,
    status: 'pending',
    requestedBy: 'U0ANA',
    decidedBy: null,
    decidedAt: null,
    executedAt: null,
    channelId: 'C0GENERAL',
    threadTs: '1.1',
    messageTs: null,
    createdAt: at(10),
    expiresAt: at(3_600),
    ...a,
  });
  return {
    run,
    thread: { id: 1, teamId: 'T0', channelId: 'C0GENERAL', threadTs: '1.1', engaged: true, summary: null, summaryTurns: null, createdAt: T0, updatedAt: T0 },
    steps: (overrides.steps ?? []).map(step),
    approvals: (overrides.approvals ?? []).map(approval),
    feedback: [{ runId: 7, userId: 'U0BEN', value: 'positive', createdAt: T0 }],
    fileNames: new Map([['F1', 'release-notes.txt']]),
    names: NAMES,
    now: overrides.now ?? at(120),
  };
}

describe('names', () => {
  it('shows a channel and a person by name with the id on hover, and the id when no name is known', async () => {
    expect(await text(channelLabel(NAMES, 'C0GENERAL'))).toBe('<span title="C0GENERAL">#general</span>');
    expect(await text(personLabel(NAMES, 'U0ANA'))).toBe('<span title="U0ANA">Ana</span>');
    expect(await text(channelLabel(NAMES, 'C0UNKNOWN'))).toBe('C0UNKNOWN');
    expect(await text(channelLabel(NAMES, 'D0ANA'))).toBe('<span title="D0ANA">a direct message</span>');
    expect(await text(personLabel(NAMES, null))).toBe('(none)');
  });
});

describe("a run's page", () => {
  it('names the channel, the asker, the voters and the files read', async () => {
    const html = await text(
      runBody(
        detail({
          steps: [
            { kind: 'model' },
            { kind: 'tool', name: 'peek_file', arguments: { id: 'F1', start: 0, stop: 400 }, resultChars: 40 },
          ],
        }),
      ),
    );
    expect(html).toContain('<dt>Channel</dt><dd><span title="C0GENERAL">#general</span></dd>');
    expect(html).toContain('<dt>Asked by</dt><dd><span title="U0ANA">Ana</span></dd>');
    expect(html).toContain('<span title="F1">release-notes.txt</span>');
    expect(html).toContain('<span title="U0BEN">Ben</span>: positive');
    expect(html).toContain('Other runs in #general');
    expect(html).not.toMatch(/>U0ANA<|>C0GENERAL<|Files read<\/dt><dd>F1/);
    expect(html).not.toContain('Now');
  });

  it("says what a running run is doing instead of 'No model or tool calls were recorded'", async () => {
    const html = await text(runBody(detail({ run: { status: 'running', finishedAt: null, model: null, currentStep: { kind: 'model', names: ['gpt-4o-mini'] }, currentStepAt: at(58) } })));
    expect(html).toContain('<dt>Now</dt><dd id="run-now">model call (gpt-4o-mini) in flight for 1 min 2 s</dd>');
    expect(html).toContain('Now: model call (gpt-4o-mini) in flight for 1 min 2 s.');
    expect(html).not.toContain('No model or tool calls were recorded');
    expect(html).toContain('<dt>Model</dt><dd>gpt-4o-mini</dd>'); // the run's record says it only at the end
  });

  it('says (none) for a run that called no model, never (unknown) or a dash', async () => {
    const html = await text(runBody(detail({ run: { status: 'refused', model: null } })));
    expect(html).toContain('<dt>Model</dt><dd>(none)</dd>');
  });

  it('times approval steps from the request to the decision, and a pending one so far', async () => {
    const decided = await text(
      runBody(
        detail({
          steps: [
            { kind: 'approval_request', name: 'tracker__create_issue', arguments: { callId: 'call-1', title: 'Login loop' }, durationMs: 0, startedAt: at(10) },
            { kind: 'approval_decision', name: 'tracker__create_issue', arguments: { callId: 'call-1', decision: 'approved', by: 'Ben' }, durationMs: 0, startedAt: at(200) },
          ],
          approvals: [{ status: 'approved', decidedBy: 'U0BEN', decidedAt: at(130) }],
        }),
      ),
    );
    expect(decided).not.toContain('took 0 ms');
    expect(decided).toContain('approved after 2 min 0 s');
    expect(decided).toContain('after a wait of 2 min 0 s');
    expect(decided).toContain('<td><span title="U0BEN">Ben</span></td>');
    const recorded = await text(runBody(detail({ steps: [{ kind: 'approval_decision', name: 't', arguments: { callId: 'call-9' }, durationMs: 95_000 }] })));
    expect(recorded).toContain('after a wait of 1 min 35 s');

    const pending = await text(
      runBody(
        detail({
          run: { status: 'waiting_approval', finishedAt: null },
          steps: [{ kind: 'approval_request', name: 'tracker__create_issue', arguments: { callId: 'call-1' }, durationMs: 0 }],
          approvals: [{}],
          now: at(70),
        }),
      ),
    );
    expect(pending).toContain('waiting for a decision: 1 min 0 s so far');
    expect(pending).toContain('waiting for approval of tracker__create_issue since 2026-11-24 16:21:10 UTC (1 min 0 s)');
  });
});

describe('what a run in progress is doing', () => {
  const base = { createdAt: T0, currentStep: null, currentStepAt: null, pendingApprovals: [] };
  it('names the tool and how long it has run, or the sign-in it waits for', () => {
    expect(describeRunNow({ ...base, status: 'running', currentStep: { kind: 'tool', names: ['peek_file'], detail: 'reading release-notes.txt…' }, currentStepAt: at(0) }, at(3))).toBe(
      'running tool peek_file for 3 s (reading release-notes.txt…)',
    );
    expect(describeRunNow({ ...base, status: 'running', currentStep: { kind: 'tool', names: ['a', 'b', 'c'] }, currentStepAt: at(0) }, at(1))).toBe('running tools a, b and c for 1 s');
    expect(describeRunNow({ ...base, status: 'waiting_approval', currentStep: { kind: 'sign_in', names: ['jira'] }, currentStepAt: at(0) }, at(30))).toBe(
      'waiting for sign-in to jira since 2026-11-24 16:21:00 UTC (30 s)',
    );
    expect(describeRunNow({ ...base, status: 'pending' }, at(4))).toBe('waiting for a worker to start it since 2026-11-24 16:21:00 UTC (4 s)');
    expect(describeRunNow({ ...base, status: 'running' }, at(4))).toMatch(/^working between calls/);
    expect(describeRunNow({ ...base, status: 'done' }, at(4))).toBeUndefined();
    expect(formatElapsed(59_900)).toBe('59 s');
    expect(formatElapsed(61_000)).toBe('1 min 1 s');
  });
});

describe('the runs list and Live', () => {
  it('show channels and people by name', async () => {
    const row: RunListRow = {
      id: 7,
      createdAt: T0,
      channelId: 'C0GENERAL',
      threadTs: '1.1',
      userId: 'U0ANA',
      question: 'q',
      status: 'done',
      model: 'gpt-4o-mini',
      durationMs: 1000,
      iterations: 1,
      inputTokens: 1,
      outputTokens: 1,
      costUsd: 0,
      positive: 0,
      negative: 0,
    };
    const list = await text(runsBody({}, [row], undefined, NAMES));
    expect(list).toContain('<td><span title="C0GENERAL">#general</span></td>');
    expect(list).toContain('<td><span title="U0ANA">Ana</span></td>');

    const live: Awaited<ReturnType<typeof listRunsInProgress>>[number] = {
      id: 8,
      status: 'running',
      question: 'take your time',
      userId: 'U0ANA',
      channelId: 'C0GENERAL',
      threadTs: '1.1',
      attempts: 1,
      leaseOwner: 'replica-a',
      elapsedMs: 65_000,
      createdAt: T0,
      currentStep: { kind: 'model', names: ['gpt-4o-mini'] },
      currentStepAt: at(0),
      pendingApprovals: [],
      now: at(61),
    };
    const rows = await text(liveRows([live], NAMES));
    expect(rows).toContain('<span title="C0GENERAL">#general</span>');
    expect(rows).toContain('<td>model call (gpt-4o-mini) in flight for 1 min 1 s</td>');
  });
});

describe('charts and Usage', () => {
  it('puts the caption above the chart and says (none) for an empty label', async () => {
    const svg = await text(barChart({ id: 'x', title: 'Cost per model (USD)', description: 'd', bars: [{ label: '', value: 1 }], format: String }));
    expect(svg.indexOf('<figcaption>')).toBeLessThan(svg.indexOf('<svg'));
    expect(svg).toContain('>(none)</text>');
  });

  it('names channels and people in charts, tables and limits, and says (none) for runs without a model', async () => {
    const row = (key: string): UsageRow => ({ key, runs: 1, refused: 0, failed: 0, inputTokens: 3_500, outputTokens: 105, costUsd: 0.5 });
    const html = await text(
      usageBody({
        range: { from: '2026-11-24', to: '2026-11-24', channelId: 'C0GENERAL' },
        totals: row('total'),
        groups: { day: [row('2026-11-24')], channel: [row('C0GENERAL')], user: [row('U0ANA')], model: [row('gpt-4o-mini'), row('')] },
        limits: { dailyUserUsd: 1, dailyChannelUsd: 0 },
        topToday: [{ scope: 'user', subjectId: 'U0ANA', costUsd: 0.5, runs: 1 }],
        liftedToday: [{ scope: 'user', subjectId: 'U0BEN', liftedBy: 'ops' }],
        unpricedModels: [],
        csrf: 'x',
        names: NAMES,
      }),
    );
    expect(html).toContain('#general (C0GENERAL): 3,605');
    expect(html).toContain('Ana (U0ANA): $0.5');
    expect(html).toContain('<td><span title="C0GENERAL">#general</span></td>');
    expect(html).toContain('<td>(none)</td>');
    expect(html).not.toContain('(unknown)');
    expect(html).toContain('Lift user Ana for today');
    expect(html).toContain('user <span title="U0BEN">Ben</span> (by ops)');
    expect(html).toContain('in <span title="C0GENERAL">#general</span>');
  });
});
