/**
 * Context engineering: what the model sees for one request. Pure functions — thread, files, skills and budget in,
 * chat messages out — plus the helpers the agent loop needs while a run grows (cutting tool results, trimming the
 * run's messages, telling the model its budget).
 */
export { buildModelMessages } from './build-messages';
export { countTokens } from '../text/tokenizer';
export { countRequestTokens } from './message-tokens';
export { fitToolResult, peekFileHint } from './fit-tool-result';
export { trimRunMessages } from './trim-run-messages';
export { buildBudgetReport } from './budget-report';
export { runBudget, toolResultLimit, retryTokenLimit } from './run-budget';
export { trimRequestForRetry } from './trim-request-for-retry';
export { countImageTokens } from './image-tokens';
export { renderFilesBlock } from './files-block';
export { renderMemoriesBlock, rankMemories, type MemoryForPrompt } from './memories-block';
export { renderSystemPrompt } from './system-prompt';
export type {
  BuiltContext,
  ChannelInfo,
  ContextBudget,
  ContextInput,
  
  CurrentImage,
  
  
} from './types';
