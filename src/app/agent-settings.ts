import type { Config } from '../config';

/** What the agent loop of every run gets from the configuration, for the bot and the terminal alike. */
export function agentSettings(config: Pick<Config, 'agent' | 'model' | 'timeZone' | 'approval'>, options: { stream: boolean }) {
  return {
    maxIterations: config.agent.maxIterations,
    runTimeoutMs: config.agent.runTimeoutMs,
    toolTimeoutMs: config.agent.toolTimeoutMs,
    contextWindow: config.model.contextWindow,
    stream: options.stream,
    timeZone: config.timeZone,
    approvalTimeoutMs: config.approval.timeoutMs,
  };
}
