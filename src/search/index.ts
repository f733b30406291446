/**
 * Search inside a thread's files: chunks that follow each document's structure, ranked by full text in the
 * database (and, with OPENAI_EMBEDDING_MODEL, fused with embeddings). files/ calls indexDocument once a file is
 * extracted and hands createSearcher's function to the thread's file access.
 */
export { chunkDocument } from './chunk-document';
export { createSearcher } from './create-searcher';
export type { Searcher } from './create-searcher';
export type { Embedder } from './embedder';
export { createHashingEmbedder } from './hashing-embedder';
export { indexDocument } from './index-document';
export { parseQuery } from './query-terms';
export { selectSnippet } from './select-snippet';
