import OpenAI from 'openai';
import type { Embedder } from './embedder';

export interface OpenAIEmbedderOptions {
  /** OPENAI_EMBEDDING_MODEL, e.g. "text-embedding-3-small". */
  model: string;
  /** An existing client (same endpoint and key as chat); otherwise one is made from apiKey/baseURL. */
  client?: OpenAI;
  apiKey?: string;
  baseURL?: string;
  /** Texts per request. OpenAI accepts up to 2048 inputs; smaller batches keep one failure cheap. */
  batchSize?: number;
  /** Requests in flight at once while a document is embedded. */
  concurrency?: number;
}

/** Embeds through any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Azure, Ollama, vLLM, llama.cpp). */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const client =
    options.client ??
    new OpenAI({ apiKey: options.apiKey ?? 'unused', baseURL: options.baseURL, maxRetries: 2, timeout: 60_000 });
  const batchSize = options.batchSize ?? 64;
  const concurrency = Math.max(1, options.concurrency ?? 2);

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    let response;
    try {
      response = await client.embeddings.create({ model: options.model, input: texts }, { signal });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Embedding ${texts.length} texts with ${options.model} failed: ${reason}`, { cause: error });
    }
    // Servers may answer out of order; `index` says which input each vector belongs to.
    const vectors: number[][] = new Array(texts.length);
    for (const item of response.data) vectors[item.index] = item.embedding;
    if (vectors.some((v) => !Array.isArray(v)) || vectors.length !== texts.length) {
      throw new Error(`Embedding with ${options.model}: asked for ${texts.length} vectors, got ${response.data.length}`);
    }
    return vectors;
  }

  return {
    model: options.model,
    async embed(texts, signal) {
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
      const results: number[][][] = new Array(batches.length);
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const mine = next++;
          results[mine] = await embedBatch(batches[mine]!, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
      return results.flat();
    },
  };
}
