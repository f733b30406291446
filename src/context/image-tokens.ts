/**
 * What an image costs in the request, by OpenAI's tile formula. "auto" is counted as "high": the provider picks,
 * and over-counting by a few hundred tokens is cheaper than a context-length error.
 */
import type { ImageDetail } from './types';
import { readImageSize } from './image-size';

const LOW_DETAIL_TOKENS = 85;
const TILE_TOKENS = 170;
const BASE_TOKENS = 85;
const TILE_SIZE = 512;
const MAX_SIDE = 2048;
const SHORT_SIDE = 768;

/** Tokens of one image: low = 85; high = fit in 2048², shortest side down to 768, 170 per 512-tile + 85. */
export function countImageTokens(width: number, height: number, detail: ImageDetail): number {
  if (detail === 'low') return LOW_DETAIL_TOKENS;
  if (!(width > 0 && height > 0)) {
    throw new RangeError(`countImageTokens: width and height must be positive numbers, got ${width}×${height}`);
  }
  let w = width;
  let h = height;
  // Only ever scaled down: a small screenshot is not blown up to 768.
  const fit = Math.min(1, MAX_SIDE / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shorten = Math.min(1, SHORT_SIDE / Math.min(w, h));
  w = Math.floor(w * shorten);
  h = Math.floor(h * shorten);
  const tiles = Math.ceil(w / TILE_SIZE) * Math.ceil(h / TILE_SIZE);
  return TILE_TOKENS * tiles + BASE_TOKENS;
}

/** The most a high-detail image can cost (768 × 2048 after scaling: 2 × 4 tiles). */
const MAX_IMAGE_TOKENS = TILE_TOKENS * 8 + BASE_TOKENS;

/** Tokens of an image part: its size from the caller, else from the data URL's header, else the worst case. */
export function countImagePartTokens(
  image: { url: string; detail: ImageDetail; width?: number; height?: number },
): number {
  if (image.detail === 'low') return LOW_DETAIL_TOKENS;
  const size = image.width && image.height ? { width: image.width, height: image.height } : readImageSize(image.url);
  return size ? countImageTokens(size.width, size.height, image.detail) : MAX_IMAGE_TOKENS;
}
