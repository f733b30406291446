import { describe, expect, it } from 'vitest';
import { loadLocalConfig } from '../../src/config';
import { checkOcrLanguages, describeMissingOcrLanguages, resolveOcrSettings } from '../../src/documents';

describe('OCR languages and settings', () => {
  it('finds the shipped language data and names a missing package in one start-up sentence', () => {
    expect(checkOcrLanguages(['eng', 'chi_sim', 'fra'])).toEqual({ available: ['eng', 'chi_sim'], missing: ['fra'] });
    const warnings: string[] = [];
    expect(resolveOcrSettings({ ocrLanguages: ['eng', 'fra'], ocrMaxPages: 10 }, (s) => warnings.push(s))).toEqual({ languages: ['eng'], maxPages: 10 });
    expect(warnings).toEqual([
      'OCR_LANGUAGES names fra but its data is not installed, so scans are read in eng only; run "npm install @tesseract.js-data/fra" or remove it from OCR_LANGUAGES.',
    ]);
    expect(describeMissingOcrLanguages(checkOcrLanguages(['eng']))).toBeUndefined();
    expect(resolveOcrSettings({ ocrLanguages: ['eng'], ocrMaxPages: 0 }, () => {})).toEqual({ languages: [], maxPages: 0 });
  });

  it('validates OCR_LANGUAGES and OCR_MAX_PAGES, with eng and 10 pages by default', () => {
    const base = { OPENAI_API_KEY: 'sk-test' };
    const defaults = loadLocalConfig(base);
    expect(defaults.ok && defaults.config.files).toMatchObject({ ocrLanguages: ['eng'], ocrMaxPages: 10 });
    const chosen = loadLocalConfig({ ...base, OCR_LANGUAGES: 'eng+chi_sim', OCR_MAX_PAGES: '3' });
    expect(chosen.ok && chosen.config.files).toMatchObject({ ocrLanguages: ['eng', 'chi_sim'], ocrMaxPages: 3 });
    const bad = loadLocalConfig({ ...base, OCR_LANGUAGES: 'english, chinese', OCR_MAX_PAGES: '-1' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toEqual(
      expect.arrayContaining([
        'OCR_LANGUAGES must be Tesseract language codes joined by "+", e.g. "eng" or "eng+chi_sim" (got "english, chinese")',
        'OCR_MAX_PAGES must be a whole number from 0 to 500 (got "-1")',
      ]),
    );
  });
});
