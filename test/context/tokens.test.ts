import { describe, expect, test } from 'vitest';
import { countImageTokens, countRequestTokens, countTokens } from '../../src/context';
import { selectEncoding } from '../../src/text/tokenizer';
import { readImageSize } from '../../src/context/image-size';

describe('countTokens', () => {
  test('picks the encoding by model name', () => {
    expect(selectEncoding('gpt-4o-mini')).toBe('o200k_base');
    expect(selectEncoding('gpt-4.1')).toBe('o200k_base');
    expect(selectEncoding('gpt-5-mini')).toBe('o200k_base');
    expect(selectEncoding('o3')).toBe('o200k_base');
    expect(selectEncoding('gpt-4')).toBe('cl100k_base');
    expect(selectEncoding('gpt-4-turbo')).toBe('cl100k_base');
    expect(selectEncoding('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(selectEncoding('llama3.1:8b')).toBe('o200k_base');
  });

  test('counts real tokens, which differ between encodings', () => {
    expect(countTokens('hello world', 'gpt-4o')).toBe(2);
    const russian = 'Привет, как дела? Всё хорошо.';
    expect(countTokens(russian, 'gpt-4o')).toBeLessThan(countTokens(russian, 'gpt-4'));
  });

  test('text that looks like a special token is counted as text, not rejected', () => {
    expect(countTokens('a <|endoftext|> b', 'gpt-4o')).toBeGreaterThan(3);
  });

  test('a request adds the chat framing to its contents', () => {
    const messages = [
      { role: 'system' as const, content: 'hello world' },
      { role: 'user' as const, content: 'hello world' },
    ];
    expect(countRequestTokens(messages, 'gpt-4o')).toBe(3 + 2 * (3 + 2));
  });
});

describe('countImageTokens (OpenAI tile formula)', () => {
  test('low detail is a flat 85', () => {
    expect(countImageTokens(4000, 3000, 'low')).toBe(85);
  });

  test('high detail: fit in 2048², shortest side to 768, 170 per 512 tile + 85', () => {
    expect(countImageTokens(1024, 1024, 'high')).toBe(765); // 768×768: 4 tiles
    expect(countImageTokens(2048, 4096, 'high')).toBe(1105); // 768×1536: 6 tiles
    expect(countImageTokens(500, 300, 'high')).toBe(255); // small images are not scaled up: 1 tile
    expect(countImageTokens(1920, 1080, 'auto')).toBe(1105); // 1365×768: 3×2 tiles
  });

  test('a size must be known for high detail', () => {
    expect(() => countImageTokens(0, 100, 'high')).toThrow(/width and height must be positive numbers, got 0×100/);
  });

  test('the size of an image shown mid-run is read from its data URL header', () => {
    const png = Buffer.alloc(33);
    png.writeUInt32BE(0x89504e47, 0);
    png.writeUInt32BE(0x0d0a1a0a, 4);
    png.writeUInt32BE(13, 8);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(1920, 16);
    png.writeUInt32BE(1080, 20);
    expect(readImageSize(`data:image/png;base64,${png.toString('base64')}`)).toEqual({ width: 1920, height: 1080 });
    expect(readImageSize('data:image/png;base64,AAAA')).toBeUndefined();
    const user = { role: 'user' as const, content: [{ type: 'image' as const, url: `data:image/png;base64,${png.toString('base64')}`, detail: 'high' as const }] };
    expect(countRequestTokens([user], 'gpt-4o')).toBe(3 + 3 + 1105);
  });
});
