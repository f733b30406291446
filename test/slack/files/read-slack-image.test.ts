import { describe, expect, it } from 'vitest';
import { detectImageFormat } from '../../../src/files/image-format';
import { listImageCandidates } from '../../../src/slack/files/read-slack-image';
import type { SlackFileObject } from '../../../src/core/slack-file';
import { detailedPhoto, slackTokenScreenshot } from '../../support/fixtures';
import { testDatabases } from '../../support/databases';
import { useFileTestbed } from '../../support/file-testbed';

const KB = 1024;

/** A PNG header claiming width × height, padded to `bytes`: enough for magic and size checks. */
function png(width: number, height: number, bytes = 100): Buffer {
  const header = Buffer.alloc(24);
  header.write('89504e470d0a1a0a', 0, 'hex');
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return Buffer.concat([header, Buffer.alloc(Math.max(0, bytes - 24))]);
}
const jpeg = (bytes = 100) => Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(bytes)]);
const heic = () => Buffer.concat([Buffer.from('00000018', 'hex'), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(100)]);

describe('image formats, by their bytes', () => {
  it('knows the formats the model can see and the ones it cannot', () => {
    expect(detectImageFormat(png(1, 1))).toBe('png');
    expect(detectImageFormat(jpeg())).toBe('jpeg');
    expect(detectImageFormat(Buffer.from('GIF89a……'))).toBe('gif');
    expect(detectImageFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('webp');
    expect(detectImageFormat(heic())).toBe('heic');
    expect(detectImageFormat(Buffer.from('II*\0'))).toBe('tiff');
    expect(detectImageFormat(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">'))).toBe('svg');
    expect(detectImageFormat(Buffer.from('%PDF-1.7'))).toBeUndefined();
  });

  it('reads whole screenshots and photos as what they are', () => {
    const shot = slackTokenScreenshot();
    const photo = detailedPhoto(320, 240);
    expect(detectImageFormat(shot)).toBe('png');
    expect(detectImageFormat(photo)).toBe('jpeg');
  });

  it('tries the original only when its declared size fits, then thumbnails largest first', () => {
    const object: SlackFileObject = {
      id: 'F1',
      size: 3 * 1024 * KB,
      url_private_download: 'https://files.slack.com/o.png',
      original_w: 2880,
      original_h: 1800,
      thumb_360: 'https://files.slack.com/360.png',
      thumb_1024: 'https://files.slack.com/1024.png',
      thumb_1024_w: 1024,
      thumb_1024_h: 640,
    };
    expect(listImageCandidates(object, 1536 * KB).map((c) => [c.key, c.width])).toEqual([
      ['thumb_1024', 1024],
      ['thumb_360', undefined],
    ]);
    expect(listImageCandidates(object, 4 * 1024 * KB)[0]).toMatchObject({ key: 'original', width: 2880, height: 1800 });
  });
});

describe.each(testDatabases())('showing an image to the model on $label', (database) => {
  const bed = useFileTestbed(database);
  const noExtraction = { extract: () => Promise.reject(new Error('images are not extracted')) };

  const accessTo = async (file: SlackFileObject, maxImageBytes = 64 * KB) =>
    (await bed.threadWith([file], { extractor: noExtraction, limits: { maxFileBytes: 10 * 1024 * KB, maxImageBytes } })).access;

  it('sends a small screenshot as it is, with its size from Slack', async () => {
    const access = await accessTo(bed.slack.addFile({ name: 'error.png', mimetype: 'image/png', content: png(1280, 800, 20 * KB) }));
    const image = await access.readImage('F1');
    expect(image.dataUrl.startsWith('data:image/png;base64,iVBORw0KGgo')).toBe(true);
    expect(image).toMatchObject({ width: 1280, height: 800 });
    expect(bed.slack.downloads).toHaveLength(1);
  });

  it('falls back to the largest thumbnail under the cap when the original is too big', async () => {
    const file = bed.slack.addFile({
      name: 'retina.png',
      mimetype: 'image/png',
      content: png(2880, 1800, 200 * KB),
      thumbs: { thumb_1024: png(1024, 640, 80 * KB), thumb_960: png(960, 600, 50 * KB), thumb_480: png(480, 300, 10 * KB) },
    });
    const image = await (await accessTo(file)).readImage('F1');
    expect(Buffer.from(image.dataUrl.split(',')[1]!, 'base64').readUInt32BE(16)).toBe(960);
    // The original was never fetched: its declared size was over the cap.
    expect(bed.slack.downloads.map((d) => d.path.split('/').pop())).toEqual(['thumb_1024', 'thumb_960']);
  });

  it('shows a JPEG as JPEG, whatever Slack calls it', async () => {
    const access = await accessTo(bed.slack.addFile({ name: 'photo.png', mimetype: 'image/png', content: jpeg(1000) }));
    expect((await access.readImage('F1')).dataUrl.startsWith('data:image/jpeg;base64,')).toBe(true);
  });

  it('refuses a HEIC it cannot show, saying why', async () => {
    const access = await accessTo(bed.slack.addFile({ name: 'IMG_0042.HEIC', mimetype: 'image/heic', content: heic() }));
    await expect(access.readImage('F1')).rejects.toMatchObject({
      code: 'unsupported',
      message: "I can't show IMG_0042.HEIC: it is a HEIC image, and I can only look at PNG, JPEG, GIF and WebP. Share it as PNG or JPEG and I'll look.",
    });
  });

  it("shows a HEIC through Slack's JPEG thumbnail when there is one", async () => {
    const file = bed.slack.addFile({ name: 'IMG_0043.HEIC', mimetype: 'image/heic', content: heic(), thumbs: { thumb_720: jpeg(500) } });
    expect((await (await accessTo(file)).readImage('F1')).dataUrl.startsWith('data:image/jpeg;base64,')).toBe(true);
  });

  it('says so when no version of the image fits the cap', async () => {
    const file = bed.slack.addFile({ name: 'poster.png', mimetype: 'image/png', content: png(8000, 8000, 300 * KB) });
    await expect((await accessTo(file)).readImage('F1')).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/^I can't show poster\.png: it is 300 KB, over the 64 KB I send to the model/),
    });
  });

  it('will not show a document as an image', async () => {
    const access = await accessTo(bed.slack.addFile({ name: 'spec.pdf', mimetype: 'application/pdf', content: '%PDF-1.4' }));
    await expect(access.readImage('F1')).rejects.toMatchObject({ code: 'unsupported', message: expect.stringContaining('spec.pdf is not an image') });
  });
});
