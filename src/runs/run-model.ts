/**
 * Which model a run uses: the one its channel's settings chose, where the composition root can make it, else the
 * workspace's — and how much that model can read at once (CONTEXT_WINDOW is the workspace model's).
 */
import type { ChatModel } from '../core/chat';

/** A chat model that may say how it calls tools (`function_calling` or `react`), recorded on the run. */
export type RunChatModel = ChatModel & { strategy?(): string };

export interface ModelChoice {
  /** The workspace's model (MODEL). `strategy()` is recorded on the run when the model can say. */
  model: RunChatModel;
  /** The model a channel's settings chose (one of ALLOWED_MODELS); `model` when absent. */
  modelFor?(name: string): RunChatModel;
}

export interface RunModelDependencies extends ModelChoice {
  /** The context window of a model a channel chose instead of the workspace's (CONTEXT_WINDOW applies to that one). */
  contextWindowOf?: (model: string) => number;
}

/** The model the channel chose, where the composition root can make it; the workspace's otherwise. */
export function modelOf(deps: ModelChoice, channelSettings: { model?: string } | undefined): RunChatModel {
  return channelSettings?.model && channelSettings.model !== deps.model.name && deps.modelFor ? deps.modelFor(channelSettings.model) : deps.model;
}

/**
 * The run's model and its context window, and `deps` as the agent must see them: with that window in its settings
 * (the same object when it is the workspace's).
 */
export function chooseRunModel<D extends RunModelDependencies & { settings: { contextWindow: number } }>(
  deps: D,
  channelSettings: { model?: string } | undefined,
): { model: RunChatModel; contextWindow: number; deps: D } {
  const model = modelOf(deps, channelSettings);
  const workspaceWindow = deps.settings.contextWindow;
  const contextWindow = model === deps.model ? workspaceWindow : (deps.contextWindowOf?.(model.name) ?? workspaceWindow);
  return { model, contextWindow, deps: contextWindow === workspaceWindow ? deps : { ...deps, settings: { ...deps.settings, contextWindow } } };
}
