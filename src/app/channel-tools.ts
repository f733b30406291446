/** Moved to tools/channel-tools.ts (issue 32: tools offered by relevance); kept so the composition root's import holds. */
export { createChannelTools, describeChannelTools } from '../tools/channel-tools';
