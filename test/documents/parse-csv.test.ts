import { describe, expect, it } from 'vitest';
import { detectDelimiter, parseCsv } from '../../src/documents/parse-csv';

const keepAll = () => true;

describe('parseCsv', () => {
  it('handles quotes, doubled quotes, delimiters and line breaks inside quotes, and CRLF', () => {
    const { rows, totalRows } = parseCsv('a,b\r\n"x, y","say ""hi""\nthere"\r\n', ',', keepAll);
    expect(rows).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"\nthere'],
    ]);
    expect(totalRows).toBe(2);
  });

  it('counts every record but keeps only what `keep` admits', () => {
    const { rows, totalRows } = parseCsv('h\n1\n2\n3\n', ',', (kept) => kept < 2);
    expect(rows).toEqual([['h'], ['1']]);
    expect(totalRows).toBe(4);
  });

  it('skips blank lines and keeps a last record without a newline', () => {
    expect(parseCsv('a,b\n\n1,2', ',', keepAll).rows).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });
});

describe('detectDelimiter', () => {
  it.each([
    ['a,b,c\n1,2,3\n', ','],
    ['a;b;c\n1,5;2,5;3\n', ';'],
    ['a\tb\n1\t2\n', '\t'],
    ['a|b|c\n1|2|3\n', '|'],
    ['"x;y",b\n"1;2",3\n', ','],
  ])('picks the delimiter of %j', (text, delimiter) => {
    expect(detectDelimiter(text)).toBe(delimiter);
  });
});
