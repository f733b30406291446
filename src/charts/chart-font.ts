/**
 * The fonts charts are drawn with, shipped in an npm package (dejavu-fonts-ttf): resvg draws text only with fonts
 * it is given, and a customer's container may have no system fonts at all, so none are looked up on the machine.
 * DejaVu Sans covers Latin, Greek, Cyrillic and many symbols.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

export const CHART_FONT_FAMILY = 'DejaVu Sans';

/** Absolute paths of the regular and bold DejaVu Sans files. */
export function chartFontFiles(): string[] {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json'));
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((name) => path.join(packageDir, 'ttf', name));
}
