/**
 * A smaller copy of an image, for when the original is over the byte cap of what goes to the model: what Slack's
 * thumbnails are for Slack files, made here for files that have none (a terminal's local screenshots). Sizes follow
 * Slack's thumbnails, largest first, never upscaled; below 360 px text in a screenshot is no longer legible, so no
 * smaller preview is made.
 */
import { drawOnWhite } from '../documents/draw-on-white';

/** Longest side in pixels, largest first. */
const PREVIEW_SIDES = [1024, 800, 480, 360] as const;
const JPEG_QUALITY = 85;

export interface ImagePreview {
  bytes: Buffer;
  mimeType: 'image/jpeg';
  width: number;
  height: number;
}

/**
 * The largest JPEG preview that fits `maxBytes`, or undefined when none does. Give it PNG, JPEG, GIF or WebP only,
 * checked by their bytes: the decoder rejects what it does not know, but crashes the process on some malformed
 * files of other formats (HEIC, BMP).
 */
export async function makeImagePreview(bytes: Buffer, maxBytes: number): Promise<ImagePreview | undefined> {
  // Loaded on first use: the native module and the system fonts it scans cost every start ~100 ms and a few MB.
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const image = await loadImage(bytes);
  const longest = Math.max(image.width, image.height);
  for (const side of PREVIEW_SIDES) {
    const scale = Math.min(1, side / longest);
    const width = Math.max(1, Math.round(image.width * scale));
    const height = Math.max(1, Math.round(image.height * scale));
    const jpeg = await drawOnWhite(createCanvas, image, width, height).encode('jpeg', JPEG_QUALITY);
    if (jpeg.length <= maxBytes) return { bytes: jpeg, mimeType: 'image/jpeg', width, height };
  }
  return undefined;
}
