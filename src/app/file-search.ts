/**
 * Search over the thread's files, wired: full-text always, fused with embeddings when OPENAI_EMBEDDING_MODEL is set
 * (through the one OpenAI binding). Every document is indexed once, when it is first extracted.
 */
import type { Config } from '../config';
import { createSearcher, indexDocument } from '../search';
import type { ExtractedDocument } from '../core/thread-file';
import type { Database } from '../store/database';
import { createOpenAIEmbedder } from './openai';

export function createFileSearch(db: Database, model: Config['model']) {
  const embedder = model.embeddingModel
    ? createOpenAIEmbedder({ apiKey: model.apiKey, baseURL: model.baseUrl, model: model.embeddingModel })
    : undefined;
  return {
    searcher: createSearcher({ db, embedder }),
    onExtracted: async (contentHash: string, document: ExtractedDocument) => {
      await indexDocument(db, contentHash, document, { embedder });
    },
  };
}
