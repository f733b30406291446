/** The Health page says the model's state (app/check-model.ts): answering, or unreachable since when, and why. */
import { describe, expect, it } from 'vitest';
import { healthBody, type HealthSnapshot } from '../../../src/console/pages/health-page';

const snapshot = (model: HealthSnapshot['model']): HealthSnapshot => ({ database: { ok: true, latencyMs: 2 }, model, intakeWaiting: 0, activeRuns: 0 });

describe('the Health page', () => {
  it('shows an unreachable model, since when, at which URL, and the last error', async () => {
    const page = String(
      await healthBody(
        snapshot({ state: 'unreachable', model: 'gpt-4.1-mini', url: 'http://127.0.0.1:9/v1', since: '2026-01-02T03:04:05.000Z', lastError: 'could not reach it (connection refused, ECONNREFUSED)' }),
        undefined,
      ),
    );
    expect(page).toContain('<h2>Model</h2>');
    expect(page).toContain('✗ unreachable since 2026-01-02 03:04:05 UTC</span> — gpt-4.1-mini at http://127.0.0.1:9/v1');
    expect(page).toContain('Last error: could not reach it (connection refused, ECONNREFUSED)');
  });

  it('shows a model that answers', async () => {
    const page = String(await healthBody(snapshot({ state: 'ok', model: 'gpt-4.1-mini', url: 'https://api.openai.com/v1' }), undefined));
    expect(page).toContain('✓ answers</span> — gpt-4.1-mini at https://api.openai.com/v1');
    expect(page).not.toContain('Last error');
  });
});
