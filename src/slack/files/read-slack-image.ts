/**
 * An image for the model, as a data: URL (the model cannot fetch Slack URLs, which need the bot token). We send
 * the largest version Slack has that fits the image byte cap: the original when its declared size fits, else the
 * biggest thumbnail that downloads within the cap. Only PNG, JPEG, GIF and WebP are shown, judged by their bytes;
 * a HEIC from a phone is shown through Slack's JPEG thumbnail when there is one, and refused when there is not.
 */
import { displayFileName } from '../../core/thread-file';
import { downloadSlackFile, type DownloadRequest } from './download';
import { FileDownloadError } from './file-download-error';
import { formatBytes } from '../../core/format';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS, type ImageFormat } from '../../files/image-format';
import { slackImageSize, type SlackFileObject } from '../../core/slack-file';
import type { ShownImage } from '../../files/file-source';
import { FileReadError, type ThreadFile } from '../../core/thread-file';

/** Largest first. Below 360 px, text in a screenshot is no longer legible: not worth sending. */
const THUMBNAIL_KEYS = ['thumb_1024', 'thumb_960', 'thumb_800', 'thumb_720', 'thumb_480', 'thumb_360'] as const;

export interface ImageCandidate {
  key: 'original' | (typeof THUMBNAIL_KEYS)[number];
  url: string;
  width?: number;
  height?: number;
}

/** The versions worth trying, best first. The original only when Slack's declared size is within the cap. */
export function listImageCandidates(object: SlackFileObject, maxImageBytes: number): ImageCandidate[] {
  const candidates: ImageCandidate[] = [];
  const original = object.url_private_download ?? object.url_private;
  if (original && object.size !== undefined && object.size <= maxImageBytes) {
    candidates.push({ key: 'original', url: original, ...slackImageSize(object, 'original') });
  }
  for (const key of THUMBNAIL_KEYS) {
    const url = object[key];
    if (typeof url === 'string' && url) candidates.push({ key, url, ...slackImageSize(object, key) });
  }
  return candidates;
}

export async function readSlackImage(
  file: ThreadFile,
  object: SlackFileObject,
  download: Omit<DownloadRequest, 'url' | 'file' | 'maxBytes' | 'declaredSize'> & { maxImageBytes: number },
): Promise<ShownImage> {
  const { maxImageBytes, ...rest } = download;
  const candidates = listImageCandidates(object, maxImageBytes);
  let unshowable: ImageFormat | 'unknown' | undefined;
  for (const candidate of candidates) {
    let bytes: Buffer;
    try {
      ({ bytes } = await downloadSlackFile({ ...rest, url: candidate.url, file, maxBytes: maxImageBytes }));
    } catch (error) {
      // A thumbnail over the cap: a smaller one may fit.
      if (error instanceof FileReadError && error.code === 'too_large') continue;
      throw error;
    }
    const format = detectImageFormat(bytes);
    if (format && SHOWABLE_IMAGE_FORMATS.has(format)) {
      const image: ShownImage = { dataUrl: `data:${imageMimeType(format)};base64,${bytes.toString('base64')}` };
      if (candidate.width) image.width = candidate.width;
      if (candidate.height) image.height = candidate.height;
      return image;
    }
    unshowable ??= format ?? 'unknown';
  }
  const name = displayFileName(file.name);
  if (unshowable) {
    const kind = unshowable === 'unknown' ? 'in a format I can’t recognise' : `a ${unshowable.toUpperCase()} image`;
    throw new FileReadError(
      'unsupported',
      `I can't show ${name}: it is ${kind}, and I can only look at PNG, JPEG, GIF and WebP. Share it as PNG or JPEG and I'll look.`,
    );
  }
  if (candidates.length === 0 && !(object.size !== undefined && object.size > maxImageBytes)) {
    throw new FileDownloadError(file.name, `Slack gave me no address to download ${name} from; share it here again.`);
  }
  const sizeText = object.size ? `it is ${formatBytes(object.size)}, ` : 'it is ';
  throw new FileReadError(
    'too_large',
    `I can't show ${name}: ${sizeText}over the ${formatBytes(maxImageBytes)} I send to the model, and Slack made no smaller preview that fits. Share a smaller screenshot or a crop.`,
  );
}
