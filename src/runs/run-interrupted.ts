import { ThreadwiseError } from '../core/errors';

/** Why a run's signal was aborted from outside the run. */
export class RunInterrupted extends ThreadwiseError<'run_interrupted'> {
  override readonly name = 'RunInterrupted';
  constructor(readonly kind: 'cancelled' | 'lease_lost' | 'shutdown') {
    super('run_interrupted', kind === 'cancelled' ? 'The answer was cancelled.' : `The run was interrupted (${kind}).`, { context: { kind } });
  }
}
