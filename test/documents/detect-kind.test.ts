import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { detectDocumentKind } from '../../src/documents';

const ascii = (value: string) => new TextEncoder().encode(value);
const zipWith = (entry: string) => zipSync({ '[Content_Types].xml': ascii('<Types/>'), [entry]: ascii('<x/>') });
const cfb = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);

describe('detectDocumentKind', () => {
  it('trusts magic bytes over the name', () => {
    expect(detectDocumentKind(ascii('%PDF-1.7\n...'), 'scan.png')).toBe('pdf');
    expect(detectDocumentKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), 'report.pdf')).toBe('image');
    expect(detectDocumentKind(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), 'photo')).toBe('image');
  });

  it('tells the OOXML formats apart by the parts inside the zip, whatever the extension', () => {
    expect(detectDocumentKind(zipWith('word/document.xml'), 'download')).toBe('docx');
    expect(detectDocumentKind(zipWith('ppt/presentation.xml'), 'deck.zip')).toBe('pptx');
    expect(detectDocumentKind(zipWith('xl/workbook.xml'), 'budget.docx')).toBe('xlsx');
    // Any other zip is an archive whose entries open as files of their own.
    expect(detectDocumentKind(zipWith('readme.txt'), 'archive.zip')).toBe('zip');
    expect(detectDocumentKind(zipWith('readme.txt'), 'logs')).toBe('zip');
  });

  it('leaves an OLE container (encrypted OOXML or legacy Office) to the format its name claims', () => {
    expect(detectDocumentKind(cfb, 'budget.xlsx')).toBe('xlsx');
    expect(detectDocumentKind(cfb, 'deck', 'application/vnd.openxmlformats-officedocument.presentationml.presentation')).toBe('pptx');
    expect(detectDocumentKind(cfb, 'old.doc')).toBe('doc');
    expect(detectDocumentKind(cfb, 'old.xls')).toBe('xls');
    expect(detectDocumentKind(cfb, 'deck', 'application/vnd.ms-powerpoint')).toBe('ppt');
    expect(detectDocumentKind(cfb, 'mystery.bin')).toBe('unsupported');
  });

  it('falls back to extension, then MIME type, then a look at the bytes', () => {
    expect(detectDocumentKind(new Uint8Array(0), 'empty.pdf')).toBe('pdf');
    expect(detectDocumentKind(ascii('a,b\n1,2\n'), 'data.csv')).toBe('csv');
    expect(detectDocumentKind(ascii('a\tb\n'), 'export', 'text/tab-separated-values')).toBe('csv');
    expect(detectDocumentKind(ascii('<p>hi</p>'), 'page.htm')).toBe('html');
    expect(detectDocumentKind(ascii('<!DOCTYPE html><html></html>'), 'saved', 'application/octet-stream')).toBe('html');
    expect(detectDocumentKind(ascii('{"a": 1}'), 'config.json')).toBe('text');
    expect(detectDocumentKind(ascii('From: a@example.com\r\nSubject: hi\r\n\r\nbody'), 'fwd.eml')).toBe('eml');
    expect(detectDocumentKind(ascii('<h1>Plan</h1>'), 'Launch plan', 'application/vnd.slack-docs')).toBe('html');
    expect(detectDocumentKind(ascii('2026-01-01 INFO started'), 'server.log', 'application/octet-stream')).toBe('text');
    expect(detectDocumentKind(ascii('FROM node:20'), 'Dockerfile')).toBe('text');
    expect(detectDocumentKind(ascii('plain words'), 'NOTES')).toBe('text');
  });

  it('calls bytes with NULs binary, except UTF-16 text', () => {
    expect(detectDocumentKind(new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00]), 'logs.gz')).toBe('unsupported');
    expect(detectDocumentKind(new Uint8Array([0x68, 0, 0x69, 0, 0x21, 0]), 'hi')).toBe('text');
  });
});
