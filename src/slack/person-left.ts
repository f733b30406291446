/**
 * A person who leaves the workspace (Slack's user_change with `deleted: true`) loses every per-person grant at once:
 * threadwise forgets their tokens and their sign-ins in progress (docs/mcp.md § Per-person sign-in, Retention).
 */
import type { Logger } from '../logging/logger';
import type { EventEnvelopePayload, UserChangePayload } from './payload-schemas';

export interface PersonLeftDependencies {
  /** store/grant-store.ts forgetPersonGrants, bound to the database. */
  forget(teamId: string, userId: string): Promise<{ grants: number; signIns: number }>;
  logger: Pick<Logger, 'info' | 'warn'>;
}

export interface PersonLeftHost {
  event(name: 'user_change', listener: (args: { event: UserChangePayload; body: Pick<EventEnvelopePayload, 'team_id'> }) => Promise<void>): unknown;
}

export function registerPersonLeft(app: PersonLeftHost, deps: PersonLeftDependencies): void {
  app.event('user_change', async ({ event, body }) => {
    if (event.user.deleted !== true) return;
    const teamId = event.user.team_id ?? body.team_id ?? '';
    try {
      const forgotten = await deps.forget(teamId, event.user.id);
      if (forgotten.grants > 0 || forgotten.signIns > 0) deps.logger.info('a person left the workspace: their grants are forgotten', { userId: event.user.id, ...forgotten });
    } catch (error) {
      deps.logger.warn('could not forget the grants of a person who left', { userId: event.user.id, error });
    }
  });
}
