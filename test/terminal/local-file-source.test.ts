/**
 * Files read from the local disk (the terminal's, the evals'): bytes and their hash from a file: URL, a plain
 * sentence when the file is gone or too large, nothing read from any other kind of address, and images over the
 * cap shown as a smaller preview — what Slack's thumbnails do for Slack files.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ThreadFile } from '../../src/core/thread-file';
import { createLocalFileSource } from '../../src/terminal/local-file-source';
import type { SlackFileObject } from '../../src/core/slack-file';

const fileOf = (name: string): ThreadFile => ({ id: 'F1', name, mimeType: 'application/octet-stream', fileType: '', sizeBytes: 0, messageTs: '1.1', slackFileId: 'local:1' });

describe('the local file source', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-local-files-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const sourceFor = (address: string) => createLocalFileSource({ objects: new Map<string, SlackFileObject>([['local:1', { id: 'local:1', url_private: address }]]) });

  it('reads the bytes from the file: URL, with their sha256', async () => {
    const file = path.join(dir, 'notes.txt');
    await writeFile(file, 'hello from disk');
    const { bytes, contentHash } = await sourceFor(pathToFileURL(file).href).readBytes(fileOf('notes.txt'), 'local:1', { maxBytes: 1024 });
    expect(bytes.toString()).toBe('hello from disk');
    expect(contentHash).toBe(createHash('sha256').update('hello from disk').digest('hex'));
  });

  it('says plainly when the file is gone, too large, or not on this disk', async () => {
    const gone = path.join(dir, 'moved.pdf');
    await expect(sourceFor(pathToFileURL(gone).href).readBytes(fileOf('moved.pdf'), 'local:1', { maxBytes: 1024 })).rejects.toMatchObject({
      code: 'deleted',
      message: `I can't open moved.pdf: it is no longer at ${gone} (moved or deleted since it was added).`,
    });
    const big = path.join(dir, 'big.txt');
    await writeFile(big, Buffer.alloc(4096, 'x'));
    await expect(sourceFor(pathToFileURL(big).href).readBytes(fileOf('big.txt'), 'local:1', { maxBytes: 1024 })).rejects.toMatchObject({
      code: 'too_large',
      message: 'big.txt is too large for me to read: it is 4 KB, and I read files up to 1 KB. Share a smaller export or the part you need.',
    });
    await expect(sourceFor('https://files.example.com/report.pdf').readBytes(fileOf('report.pdf'), 'local:1', { maxBytes: 1024 })).rejects.toMatchObject({ code: 'no_access' });
    await expect(createLocalFileSource({ objects: new Map() }).readBytes(fileOf('report.pdf'), 'local:1', { maxBytes: 1024 })).rejects.toMatchObject({ code: 'deleted' });
  });

  it('shows a small image as it is, and a large one as a preview within the cap', async () => {
    const canvas = createCanvas(2400, 1600);
    const context = canvas.getContext('2d');
    // Noise: a PNG of it is large, and no preview of it is trivially small.
    const pixels = context.createImageData(2400, 1600);
    let seed = 42;
    for (let i = 0; i < pixels.data.length; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      pixels.data[i] = i % 4 === 3 ? 255 : seed >> 23;
    }
    context.putImageData(pixels, 0, 0);
    const large = path.join(dir, 'screen.png');
    const png = await canvas.encode('png');
    await writeFile(large, png);
    const cap = 200 * 1024;
    expect(png.length).toBeGreaterThan(cap);

    const preview = await sourceFor(pathToFileURL(large).href).readImage(fileOf('screen.png'), 'local:1', { maxImageBytes: cap });
    expect(preview.dataUrl).toMatch(/^data:image\/jpeg;base64,/);
    expect(Buffer.from(preview.dataUrl.split(',')[1]!, 'base64').length).toBeLessThanOrEqual(cap);
    expect(preview.width).toBeLessThanOrEqual(1024);
    expect(preview.width! / preview.height!).toBeCloseTo(1.5, 1);

    const original = await sourceFor(pathToFileURL(large).href).readImage(fileOf('screen.png'), 'local:1', { maxImageBytes: png.length });
    expect(original.dataUrl).toBe(`data:image/png;base64,${png.toString('base64')}`);
  });

  it('refuses an image it cannot decode with the formats it can show', async () => {
    const heic = path.join(dir, 'photo.heic');
    await writeFile(heic, Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic'), Buffer.alloc(64)]));
    await expect(sourceFor(pathToFileURL(heic).href).readImage(fileOf('photo.heic'), 'local:1', { maxImageBytes: 16 })).rejects.toMatchObject({
      code: 'unsupported',
      message: "I can't show photo.heic: it is a HEIC image, and I can only look at PNG, JPEG, GIF and WebP. Save it as PNG or JPEG and add it again.",
    });
  });
});
