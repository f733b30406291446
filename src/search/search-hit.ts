/**
 * What a search returns: a passage with where it sits, so the model can peek around it and cite it. search/ owns
 * the shape; files/ searches a thread's files with it and the tools hand it to the model.
 */

/** A passage found by search_file, with where it sits so the model can peek around it and cite it. */
export interface SearchHit {
  fileId: string;
  fileName: string;
  /** "p. 37", "§ Results", "Sheet 'Budget'", "slide 4" */
  location: string;
  page?: number;
  start: number;
  end: number;
  text: string;
  /** The part of `text` that best shows why it matched, matched words marked «like this». */
  snippet: string;
  /** Why it matched, in a few words: the query words it holds, a phrase, which phrasing found it. */
  reason?: string;
  /** The passage's language ("German", "Chinese"), when its text gives it away: search in it next time. */
  language?: string;
  score: number;
}

export interface SearchOptions {
  signal?: AbortSignal;
  /** Longest excerpt per hit (shorter when the context is nearly full). */
  snippetChars?: number;
}
