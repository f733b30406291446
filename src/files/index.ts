/**
 * files/: the thread's files as stable ids, read on demand — the registry (ids), where bytes come from (a
 * FileSource: Slack's is in slack/files/, the terminal's in terminal/), access for the tools (extraction once,
 * the cache, search), preloads, prefetch and the images shown to the model. Reading a document's bytes is
 * documents/; finding passages in it is search/.
 */
export { registerThreadFiles, listThreadFiles } from './registry';
