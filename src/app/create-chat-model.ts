import type { Config } from '../config';
import type { Logger } from '../logging/logger';
import { ModelError, type ChatMessage, type ChatModel, type ChatRequest } from '../core/chat';
import { createOpenAIChatModel } from './openai';
import { createReActChatModel } from '../agent/react-chat-model';
import { createRetryingChatModel, type RetryingOptions } from '../agent/retrying-chat-model';

type AgentStrategy = 'function_calling' | 'react';

export interface ConfiguredChatModel extends ChatModel {
  supportsImages(): boolean;
  /** The protocol in use now; under `auto` it turns to 'react' once the endpoint has rejected tools. */
  strategy(): AgentStrategy;
}

/**
 * The model the agent talks to, with the strategy chosen by AGENT_STRATEGY: native function calling, the ReAct
 * text protocol, or `auto` — function calling until the endpoint rejects tools, then ReAct for this model from then
 * on (for the life of the process). Likewise images: once the endpoint rejects image input, images are replaced by
 * a sentence. Every call is retried with backoff (see retrying-chat-model.ts), for the agent loop and sub-agents alike.
 */
export function createChatModel(config: Config['model'], logger: Logger, options: { retry?: RetryingOptions; onOutcome?: (error?: unknown) => void } = {}): ConfiguredChatModel {
  const base = createRetryingChatModel(
    createOpenAIChatModel({ apiKey: config.apiKey, baseUrl: config.baseUrl, model: config.name, timeoutMs: config.timeoutMs, onOutcome: options.onOutcome }),
    options.retry,
  );
  const react = createReActChatModel(base);
  let useReAct = config.strategy === 'react';
  let imagesAccepted = config.vision;

  const complete = async (request: ChatRequest) => {
    const sendable = imagesAccepted ? request : { ...request, messages: withoutImages(request.messages) };
    try {
      return await (useReAct ? react : base).complete(sendable);
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      if (error.kind === 'tools_unsupported' && config.strategy === 'auto' && !useReAct) {
        logger.warn('the model endpoint rejects tools; switching to the ReAct text protocol for this model', { model: config.name });
        useReAct = true;
        return complete(request);
      }
      if (error.kind === 'images_unsupported' && imagesAccepted) {
        logger.warn('the model endpoint rejects images; describing them instead', { model: config.name });
        imagesAccepted = false;
        return complete(request);
      }
      throw error;
    }
  };
  return {
    name: config.name,
    complete,
    supportsImages: () => imagesAccepted,
    strategy: () => (useReAct ? 'react' : 'function_calling'),
  };
}

/** Image parts → a sentence, so a model without vision never pretends it saw them. */
function withoutImages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((message) => {
    if (message.role !== 'user' || typeof message.content === 'string') return message;
    const images = message.content.filter((part) => part.type === 'image').length;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    if (images === 0) return { role: 'user', content: text };
    return {
      role: 'user',
      content: `${text}\n\n[${images} image${images > 1 ? 's were' : ' was'} attached here, but this model cannot see images. Rely on the image descriptions in the files list, and say so if they are not enough.]`,
    };
  });
}
