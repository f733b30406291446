import { describe, expect, it } from 'vitest';
import { chooseRunModel, modelOf, type RunChatModel } from '../../src/runs/run-model';

const chatModel = (name: string): RunChatModel => ({ name, complete: () => Promise.reject(new Error('not called')) });

describe('which model a run uses', () => {
  const workspace = chatModel('workspace-model');
  const made: string[] = [];
  const deps = {
    model: workspace,
    modelFor: (name: string) => {
      made.push(name);
      return chatModel(name);
    },
    contextWindowOf: (name: string) => (name === 'long-model' ? 200_000 : 16_000),
    settings: { contextWindow: 32_000, stream: false },
  };

  it('is the workspace’s, with CONTEXT_WINDOW, when the channel chose none or the same one', () => {
    for (const settings of [undefined, {}, { model: 'workspace-model' }]) {
      const chosen = chooseRunModel(deps, settings);
      expect(chosen.model).toBe(workspace);
      expect(chosen.contextWindow).toBe(32_000);
      expect(chosen.deps).toBe(deps);
    }
    expect(made).toEqual([]);
  });

  it('is the channel’s choice, with that model’s context window in the settings the agent sees', () => {
    const chosen = chooseRunModel(deps, { model: 'long-model' });
    expect(chosen.model.name).toBe('long-model');
    expect(chosen.contextWindow).toBe(200_000);
    expect(chosen.deps.settings).toEqual({ contextWindow: 200_000, stream: false });
    expect(deps.settings.contextWindow).toBe(32_000);
  });

  it('keeps CONTEXT_WINDOW for a chosen model whose window is unknown', () => {
    const chosen = chooseRunModel({ ...deps, contextWindowOf: undefined }, { model: 'long-model' });
    expect(chosen.model.name).toBe('long-model');
    expect(chosen.contextWindow).toBe(32_000);
  });

  it('stays the workspace’s where the composition root cannot make another (the terminal)', () => {
    expect(modelOf({ model: workspace }, { model: 'long-model' })).toBe(workspace);
  });
});
