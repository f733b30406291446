/** Finding a query result by id for make_chart and attach_file, with a sentence when the id is not one. */
import { ThreadwiseError } from '../core/errors';
import type { ResultStore, StoredResult } from '../tables/result-store';

export async function getResultOrExplain(results: ResultStore, id: string, tool: string): Promise<StoredResult> {
  const result = await results.get(id);
  if (result) return result;
  throw new ThreadwiseError(
    'unknown_result',
    `${JSON.stringify(id)} is not a query result of this thread. ${tool} takes the id query_table returned (like "F2.q1"); run query_table first.`,
    { context: { id, tool } },
  );
}
