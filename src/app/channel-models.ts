/**
 * The model a run uses: the workspace's, or one a channel chose from ALLOWED_MODELS. One client per chosen model,
 * made on first use and kept, since each remembers what its endpoint accepts (tools, images).
 */
import type { LocalConfig } from '../config';
import type { Logger } from '../logging/logger';
import { createChatModel, type ConfiguredChatModel } from './create-chat-model';
import type { RetryingOptions } from '../agent/retrying-chat-model';

export function createChannelModels(config: LocalConfig['model'], logger: Logger, options: { retry?: RetryingOptions; onOutcome?: (error?: unknown) => void } = {}) {
  const workspace = createChatModel(config, logger, options);
  const chosen = new Map<string, ConfiguredChatModel>();
  return {
    workspace,
    modelFor(name: string): ConfiguredChatModel {
      if (!(config.allowedModels ?? []).includes(name)) return workspace;
      let model = chosen.get(name);
      if (!model) {
        model = createChatModel({ ...config, name }, logger, options);
        chosen.set(name, model);
      }
      return model;
    },
  };
}
