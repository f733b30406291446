/**
 * Beyond the thread (DESIGN.md): the messages of the channels threadwise is in, kept from message events and a
 * bounded backfill, searched with search_file's analysis, and shown to a person only from conversations they may
 * read in Slack. Memories live in store/memory-store.ts; the tools in tools/search-messages.ts and its siblings.
 */
export { applyMessageEvent, indexMessages, noteChannel, findIndexedMessage, type MessageEventOptions, type MessageEventOutcome, type MessageToIndex } from './message-index';
export { backfillChannel, backfillChannels, type BackfillOptions, type BackfillResult } from './backfill';
export { createSlackDirectory, type DirectoryOptions, type KnowledgeDirectory } from './directory';
export { readableChannels, filterReadable, findReadableChannel, channelLabel, type Asker, type ReadableChannel } from './access';
export { searchMessages, type MessageHit, type MessageSearchRequest, type MessageSearchResult } from './search-messages';
export { readChannel, type ChannelMessage, type ChannelReading, type ReadChannelRequest } from './read-channel';
export { callWithRateLimit, type KnowledgeSlackApi } from './slack-api';
