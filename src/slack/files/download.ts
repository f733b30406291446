/**
 * Downloads one Slack file with the bot token. The token goes only to Slack's own hosts (slack-hosts.ts), on the
 * first request and on every redirect; redirects are followed by hand for that reason. The size cap holds before
 * (declared size, Content-Length) and during (streamed bytes) the download. Slack's sign-in page, which it serves
 * with 200 in place of a file the bot may not see, is recognised and never handed on as the file.
 */
import { displayFileName } from '../../core/thread-file';
import { fileReadError } from '../../files/describe-file-error';
import { FileDownloadError } from './file-download-error';
import { sleep } from '../../core/abort';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, retryDelay, type RetryPolicy } from './download-retry';
import { BodyTooLargeError, looksLikeHtmlPage, readCappedBody, type CappedBody } from './read-capped-body';
import { isSlackFileHost } from './slack-hosts';
import { FileReadError, type ThreadFile } from '../../core/thread-file';

export interface DownloadRequest {
  url: string;
  /** For sentences and for the HTML check: an HTML file may of course be HTML. */
  file: Pick<ThreadFile, 'name'> & Partial<Pick<ThreadFile, 'fileType' | 'mimeType'>>;
  botToken: string;
  /** SLACK_API_URL: its host is trusted with the token too (proxies, GovSlack, the fake Slack in tests). */
  apiUrl: string;
  maxBytes: number;
  /** Slack's `size`. Over maxBytes → refused without a request. */
  declaredSize?: number;
  timeoutMs?: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

const DEFAULT_DOWNLOAD_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 3;

export async function downloadSlackFile(request: DownloadRequest): Promise<CappedBody & { contentType?: string }> {
  const { file, maxBytes, declaredSize } = request;
  if (declaredSize !== undefined && declaredSize > maxBytes) {
    throw fileReadError(file, 'too_large', { sizeBytes: declaredSize, limitBytes: maxBytes });
  }
  const timeoutMs = request.timeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  try {
    return await downloadWithRetries(request, signal);
  } catch (error) {
    if (timeout.aborted && !request.signal?.aborted) {
      throw new FileReadError(
        'timeout',
        `Downloading ${describeName(file)} from Slack took longer than ${Math.round(timeoutMs / 1000)} s, so I stopped. Ask again in a moment.`,
        { cause: error },
      );
    }
    throw error;
  }
}

async function downloadWithRetries(request: DownloadRequest, signal: AbortSignal) {
  const policy = request.retry ?? DEFAULT_RETRY_POLICY;
  for (let attempt = 1; ; attempt += 1) {
    let response: Response;
    try {
      response = await fetchFollowingSlackRedirects(request, signal);
    } catch (error) {
      if (signal.aborted || error instanceof FileDownloadError) throw error;
      const delay = retryDelay(policy, attempt, null);
      if (delay === undefined) {
        throw new FileDownloadError(request.file.name, `I couldn't reach Slack to download ${describeName(request.file)} (${String(error)}). Ask again in a moment.`, undefined, { cause: error });
      }
      await sleep(delay, signal);
      continue;
    }
    if (response.ok) return readFile(request, response);
    await response.body?.cancel().catch(() => {});
    if (!isRetryableStatus(response.status)) throw statusError(request, response.status);
    const delay = retryDelay(policy, attempt, response.headers.get('retry-after'));
    if (delay === undefined) {
      const what = response.status === 429 ? 'is rate-limiting file downloads' : `answered HTTP ${response.status}`;
      throw new FileDownloadError(request.file.name, `Slack ${what}, so I couldn't download ${describeName(request.file)} after ${attempt} ${attempt === 1 ? 'try' : 'tries'}. Ask again in a minute.`, response.status);
    }
    await sleep(delay, signal);
  }
}

async function fetchFollowingSlackRedirects(request: DownloadRequest, signal: AbortSignal): Promise<Response> {
  const doFetch = request.fetch ?? fetch;
  let url = new URL(request.url);
  for (let hop = 0; ; hop += 1) {
    if (!isSlackFileHost(url, request.apiUrl)) {
      throw new FileDownloadError(
        request.file.name,
        `I won't download ${describeName(request.file)}: ${hop === 0 ? 'its address is' : 'Slack redirected it to'} ${url.host}, which is not a Slack file host, and I only send my token to Slack.`,
      );
    }
    const response = await doFetch(url, {
      headers: { authorization: `Bearer ${request.botToken}` },
      redirect: 'manual',
      signal,
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    await response.body?.cancel().catch(() => {});
    if (hop === MAX_REDIRECTS) {
      throw new FileDownloadError(request.file.name, `Slack redirected the download of ${describeName(request.file)} more than ${MAX_REDIRECTS} times, so I stopped.`, response.status);
    }
    url = new URL(location, url);
  }
}

async function readFile(request: DownloadRequest, response: Response) {
  const { file, maxBytes } = request;
  const contentType = response.headers.get('content-type') ?? undefined;
  const expectsHtml = isHtmlFile(file);
  if (!expectsHtml && contentType && /^text\/html\b/i.test(contentType)) {
    await response.body?.cancel().catch(() => {});
    throw fileReadError(file, 'no_access');
  }
  const length = Number(response.headers.get('content-length') ?? NaN);
  if (length > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw fileReadError(file, 'too_large', { sizeBytes: length, limitBytes: maxBytes });
  }
  let body: CappedBody;
  try {
    body = await readCappedBody(response.body, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw fileReadError(file, 'too_large', { limitBytes: maxBytes }, error);
    throw error;
  }
  if (!expectsHtml && looksLikeHtmlPage(body.bytes)) throw fileReadError(file, 'no_access');
  return contentType === undefined ? body : { ...body, contentType };
}

function statusError(request: DownloadRequest, status: number): Error {
  const { file } = request;
  if (status === 401 || status === 403) return fileReadError(file, 'no_access');
  if (status === 404 || status === 410) return fileReadError(file, 'deleted');
  return new FileDownloadError(file.name, `Slack answered HTTP ${status} when I tried to download ${describeName(file)}.`, status);
}

/** HTML files, and Slack's own documents (canvases — "quip" in file objects —, posts), which download as HTML. */
function isHtmlFile(file: DownloadRequest['file']): boolean {
  return (
    /^(html?|xhtml|quip|canvas|post|space|docs)$/i.test(file.fileType ?? '') ||
    /^(text\/html|application\/xhtml\+xml|application\/vnd\.slack-)/i.test(file.mimeType ?? '')
  );
}

function describeName(file: { name: string }): string {
  return displayFileName(file.name);
}
