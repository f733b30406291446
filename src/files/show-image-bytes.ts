/**
 * An image's bytes as what the model is shown: as they are when within the byte cap, else the largest JPEG preview
 * that fits. For images with no Slack thumbnails: a terminal's local files, pictures inside documents and archives.
 */
import { formatBytes } from '../core/format';
import { displayFileName, FileReadError, type ThreadFile } from '../core/thread-file';
import { detectImageFormat, imageMimeType, SHOWABLE_IMAGE_FORMATS } from './image-format';
import { makeImagePreview } from './image-preview';
import type { ShownImage } from './file-source';

export async function showImageBytes(file: Pick<ThreadFile, 'name'>, bytes: Buffer, maxImageBytes: number): Promise<ShownImage> {
  const format = detectImageFormat(bytes);
  const name = displayFileName(file.name);
  // Only formats the model takes are decoded for a preview: the image codecs crash the process outright (not an
  // exception) on some malformed HEIC and BMP files, and the model could not take those formats anyway.
  if (!format || !SHOWABLE_IMAGE_FORMATS.has(format)) {
    const kind = format ? `a ${format.toUpperCase()} image` : 'in a format I can’t recognise';
    throw new FileReadError(
      'unsupported',
      `I can't show ${name}: it is ${kind}, and I can only look at PNG, JPEG, GIF and WebP. Save it as PNG or JPEG and add it again.`,
    );
  }
  if (bytes.length <= maxImageBytes) return { dataUrl: `data:${imageMimeType(format)};base64,${bytes.toString('base64')}` };
  let preview;
  try {
    preview = await makeImagePreview(bytes, maxImageBytes);
  } catch (error) {
    throw new FileReadError('corrupt', `I can't show ${name}: the image is damaged and could not be decoded. Save it again and add it again.`, { cause: error });
  }
  if (!preview) {
    throw new FileReadError(
      'too_large',
      `I can't show ${name}: it is ${formatBytes(bytes.length)}, and even a small preview of it is over the ${formatBytes(maxImageBytes)} I send to the model. Crop it and add it again.`,
    );
  }
  return { dataUrl: `data:${preview.mimeType};base64,${preview.bytes.toString('base64')}`, width: preview.width, height: preview.height };
}
