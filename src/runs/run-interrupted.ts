/** Why a run's signal was aborted from outside the run. */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
  constructor(readonly kind: 'cancelled' | 'lease_lost' | 'shutdown') {
    super(kind === 'cancelled' ? 'The answer was cancelled.' : `The run was interrupted (${kind}).`);
  }
}
