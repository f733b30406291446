/**
 * What a run is doing right now, kept on its record for the console ("model call in flight for 40 s", "running
 * peek_file for 3 s"): set as a model call or a round of tools starts (the loop's events), cleared as it ends (its
 * step is recorded). The writes go out one after another, never waited for by the run, and never fail it.
 */
import type { AgentEvent } from '../agent/agent-event';
import type { CurrentStep, RunStepRecord } from '../core/run-step';
import type { RunLedger } from './seams';

export interface CurrentStepTracker {
  /** The loop's events: a model call or a round of tools starts. */
  onEvent(event: AgentEvent): void;
  /** A step ended (the step-recording seam). */
  stepEnded(step: RunStepRecord): void;
  /** Resolves once every write so far is done. */
  settled(): Promise<void>;
}

export function trackCurrentStep(
  ledger: Pick<RunLedger, 'recordCurrentStep'>,
  run: { id: number; leaseOwner: string | null },
  modelName: string,
  onError: (error: unknown) => void = () => {},
): CurrentStepTracker {
  let chain: Promise<void> = Promise.resolve();
  let tools: string[] = [];
  let detail: string | undefined;
  const write = (step: CurrentStep | null, keepSince = false) => {
    const record = ledger.recordCurrentStep;
    if (!record) return;
    chain = chain.then(() => record(run.id, run.leaseOwner ?? '', step, { keepSince })).catch(onError);
  };
  return {
    onEvent(event) {
      if (event.type === 'thinking') {
        tools = [];
        write({ kind: 'model', names: [modelName] });
      } else if (event.type === 'tools_started') {
        tools = event.calls.map((call) => call.name);
        detail = event.calls.map((call) => call.progress).join(' · ') || undefined;
        write({ kind: 'tool', names: [...tools], ...(detail ? { detail } : {}) });
      }
    },
    stepEnded(step) {
      if (step.kind === 'model') write(null);
      else if (step.kind === 'tool') {
        const at = tools.indexOf(step.name);
        if (at < 0) return;
        tools.splice(at, 1);
        write(tools.length ? { kind: 'tool', names: [...tools] } : null, tools.length > 0);
      }
    },
    settled: () => chain,
  };
}
