/**
 * Issue 4: screenshots reach the model without anyone asking — through the real app, the fake Slack serving
 * generated images (a PNG screenshot, a large detailed JPEG photo and its thumbnail) behind the bot token, and the
 * fake model.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL, startHarness, type Harness } from '../support/harness';
import { detailedPhoto, editorWithCode, figure, slackTokenScreenshot } from '../support/fixtures';
import type { ChatRequestBody } from '../fakes/fake-openai';

type Part = { type: string; text?: string; image_url?: { url: string } };

function imageParts(request: ChatRequestBody): string[] {
  return request.messages.flatMap((message) =>
    Array.isArray(message.content) ? (message.content as Part[]).filter((p) => p.type === 'image_url').map((p) => p.image_url!.url) : [],
  );
}

const isDescribeRequest = (request: ChatRequestBody) => JSON.stringify(request.messages).includes('Describe this image for a colleague');

/** The first answering request that carries this question (requests from earlier tests may still arrive). */
function requestAsking(h: Harness, question: string): ChatRequestBody {
  const found = h.model.requests.find((r) => !isDescribeRequest(r) && JSON.stringify(r.messages).includes(question));
  if (!found) throw new Error(`no model request asked "${question}"`);
  return found;
}

function decode(dataUrl: string): { mime: string; bytes: Buffer } {
  const match = /^data:([^;]+);base64,(.*)$/s.exec(dataUrl);
  if (!match) throw new Error(`not a base64 data URL: ${dataUrl.slice(0, 40)}`);
  return { mime: match[1]!, bytes: Buffer.from(match[2]!, 'base64') };
}

const editor = editorWithCode();
const settings = slackTokenScreenshot();

describe('screenshots on the question', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { MAX_IMAGE_KB: '300' } });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.slack.reset();
    h.model.reset();
    h.model.setDefault((request) =>
      isDescribeRequest(request) ? { text: 'A screenshot of a code editor showing a TypeError on line 12.' } : { text: 'I can see it.' },
    );
  });

  it('go to the model as data: URLs of real PNG and JPEG bytes within the byte cap', async () => {
    const png = h.slack.addFile({ name: 'screenshot-editor.png', mimetype: 'image/png', filetype: 'png', content: editor });
    // A photo over the 300 KB cap: Slack's own 1024px thumbnail is sent instead (no image library involved).
    const big = detailedPhoto(1600, 1200);
    expect(big.length).toBeGreaterThan(300 * 1024);
    const jpg = h.slack.addFile({
      name: 'photo.jpg',
      mimetype: 'image/jpeg',
      filetype: 'jpg',
      content: big,
      thumbs: { thumb_1024: figure(1024, 768, 9).jpeg },
    });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what is wrong here?`, files: [png, jpg] });
    await h.answers(CHANNEL, ts);
    await h.model.waitForRequests(3); // the answer, then one description per image shown

    const images = imageParts(requestAsking(h, 'what is wrong here?')).map(decode);
    expect(images).toHaveLength(2);
    expect(images[0]!.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(images[1]!.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    for (const image of images) expect(image.bytes.length).toBeLessThanOrEqual(300 * 1024);
    expect(images[1]!.bytes.length).toBeLessThan(big.length);
  });

  it('are described once, and the description stands in for the image on the next turn', async () => {
    const png = h.slack.addFile({ name: 'typewriter.png', mimetype: 'image/png', filetype: 'png', content: settings });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> read this`, files: [png] });
    await h.answers(CHANNEL, ts);
    await h.model.waitForRequests(2);
    expect(h.model.requests.filter(isDescribeRequest)).toHaveLength(1);

    await h.mention({ threadTs: ts, text: `<@${h.slack.botUserId}> and what did the image say again?` });
    await h.answers(CHANNEL, ts, 2);
    const second = h.model.requests.filter((r) => !isDescribeRequest(r)).at(-1)!;
    expect(imageParts(second)).toHaveLength(0);
    expect(JSON.stringify(second.messages)).toContain('TypeError on line 12');
    expect(h.model.requests.filter(isDescribeRequest)).toHaveLength(1);
  });

  it('that the bot may not download get a clear sentence instead', async () => {
    const locked = h.slack.addFile({ name: 'secret.png', mimetype: 'image/png', filetype: 'png', content: settings, access: 'html_login' });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> look at this`, files: [locked] });
    await h.answers(CHANNEL, ts);
    const request = requestAsking(h, 'look at this');
    expect(imageParts(request)).toHaveLength(0);
    expect(JSON.stringify(request.messages)).toContain("I can't open secret.png: Slack says I don't have access to it.");
  });

  it('of types a model cannot see are listed with a sentence saying so', async () => {
    const heic = h.slack.addFile({ name: 'IMG_0001.heic', mimetype: 'image/heic', filetype: 'heic', content: Buffer.from('....ftypheic....') });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> this one?`, files: [heic] });
    await h.answers(CHANNEL, ts);
    const request = requestAsking(h, 'this one?');
    expect(imageParts(request)).toHaveLength(0);
    expect(JSON.stringify(request.messages)).toContain("I can't show IMG_0001.heic: it is a HEIC image");
  });
});

describe('a model without vision', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { OPENAI_VISION: 'false' } });
  });
  afterAll(() => h.close());

  it('gets no image parts, and is told it cannot see the image', async () => {
    h.model.setDefault({ text: 'I cannot see images, but…' });
    const png = h.slack.addFile({ name: 'screenshot-editor.png', mimetype: 'image/png', filetype: 'png', content: editor });
    const { ts } = await h.mention({ text: `<@${h.slack.botUserId}> what is wrong here?`, files: [png] });
    await h.answers(CHANNEL, ts);
    expect(h.model.requests.every((r) => imageParts(r).length === 0)).toBe(true);
    expect(JSON.stringify(h.model.requests[0]!.messages)).toMatch(/cannot see images/);
  });

  it('is detected when the endpoint rejects image input, and remembered', async () => {
    const h2 = await startHarness();
    try {
      h2.model.rejectImages = true;
      h2.model.setDefault({ text: 'Answered without the picture.' });
      const png = h2.slack.addFile({ name: 'a.png', mimetype: 'image/png', filetype: 'png', content: settings });
      const { ts } = await h2.mention({ text: `<@${h2.slack.botUserId}> see?`, files: [png] });
      expect(await h2.answers(CHANNEL, ts)).toEqual(['Answered without the picture.']);
      const { ts: next } = await h2.mention({ text: `<@${h2.slack.botUserId}> again`, files: [png] });
      await h2.answers(CHANNEL, next);
      const rejected = h2.model.outcomes.filter((o) => o.kind === 'rejected').length;
      expect(rejected).toBe(1);
    } finally {
      await h2.close();
    }
    // A harness of its own (a second database): 20 s of a 30 s default on a busy 2-core machine.
  }, 90_000);
});
