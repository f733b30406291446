/**
 * One image, scaled, on a white page. Transparent pixels must become white, as on paper: JPEG has no transparency
 * (clear areas of a screenshot would turn black), and OCR reads black text on transparency as black on black.
 */
import type { Canvas, Image, createCanvas as CreateCanvas } from '@napi-rs/canvas';

export function drawOnWhite(createCanvas: typeof CreateCanvas, image: Image, width: number, height: number): Canvas {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.drawImage(image, 0, 0, width, height);
  return canvas;
}
