import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pngFile } from '../../test/fakes/png-file';
import { imagePdf, PDF_TEXT_COLUMNS, textPdf, wrapText } from './pdf';
import { MAX_PNG_PIXELS, PngError, pngToPdfImage } from './png';

/** Every object the cross-reference table lists starts where it says; answers the objects' texts. */
function objectsOf(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  expect(text.endsWith('%%EOF\n')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
  expect(text.slice(startxref, startxref + 5)).toBe('xref\n');
  const [, count] = /^xref\n0 (\d+)\n/.exec(text.slice(startxref))!;
  const entries = text.slice(startxref).split('\n').slice(3, 2 + Number(count));
  return entries.map((entry, index) => {
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + `${index + 1} 0 obj`.length)).toBe(`${index + 1} 0 obj`);
    return text.slice(offset, text.indexOf('endobj', offset));
  });
}

/** The bytes of the stream of an object (its /Length honoured). */
function streamOf(object: string): Buffer {
  const length = Number(/\/Length (\d+)/.exec(object)![1]);
  const start = object.indexOf('stream\n') + 'stream\n'.length;
  return Buffer.from(object.slice(start, start + length), 'latin1');
}

describe('text PDF', () => {
  it('wraps at the column count, cutting only words longer than a line', () => {
    expect(wrapText('a b c', 3)).toEqual(['a b', 'c']);
    expect(wrapText('abcdefgh ij', 3)).toEqual(['abc', 'def', 'gh', 'ij']);
    expect(wrapText('one\n\ntwo', 10)).toEqual(['one', '', 'two']);
    expect(wrapText('x'.repeat(200)).every((line) => line.length <= PDF_TEXT_COLUMNS)).toBe(true);
  });

  it('writes a well-formed file whose pages carry the text, escaped, in Windows-1252', () => {
    const pdf = textPdf('Statement', [
      { heading: 'Shipping carrier', body: 'Correios (SEDEX) \\ entregue – São Paulo' },
      { heading: 'Other', body: 'line\n'.repeat(130) },
    ]);
    const objects = objectsOf(pdf);
    expect(objects[0]).toContain('/Type /Catalog');
    expect(objects[1]).toContain('/Count 3');
    const content = objects.filter((o) => o.includes('stream\n')).map(streamOf).map((s) => s.toString('latin1')).join('\n');
    expect(content).toContain('(Correios \\(SEDEX\\) \\\\ entregue \\226 S\\343o Paulo) Tj');
    expect(content).toContain('/F2 10 Tf\n(Shipping carrier) Tj');
  });
});

describe('PNG to a PDF image', () => {
  it('decodes every row filter and lays transparency over white', () => {
    // Five rows of two pixels: opaque red and blue, then half-transparent, then transparent pixels.
    const samples = [255, 0, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255, 200, 100, 50, 128, 0, 0, 0, 0, 7, 8, 9, 255, 1, 2, 3, 255, 250, 251, 252, 255, 90, 91, 92, 255, 60, 70, 80, 64];
    const image = pngToPdfImage(pngFile(2, 5, samples));
    expect(image).toMatchObject({ width: 2, height: 5, colorSpace: 'DeviceRGB' });
    const over = (c: number, a: number) => Math.round((c * a + 255 * (255 - a)) / 255);
    const expected: number[] = [];
    for (let i = 0; i < samples.length; i += 4) expected.push(over(samples[i]!, samples[i + 3]!), over(samples[i + 1]!, samples[i + 3]!), over(samples[i + 2]!, samples[i + 3]!));
    expect([...inflateSync(image.deflated)]).toEqual(expected);
    const gray = pngToPdfImage(pngFile(3, 2, [0, 128, 255, 1, 2, 3], { gray: true }));
    expect(gray.colorSpace).toBe('DeviceGray');
    expect([...inflateSync(gray.deflated)]).toEqual([0, 128, 255, 1, 2, 3]);
  });

  it('puts the image on an A4 page, scaled to fit', () => {
    const pdf = imagePdf(pngToPdfImage(pngFile(990, 10, new Array(990 * 10 * 4).fill(255))));
    const objects = objectsOf(pdf);
    const image = objects.find((o) => o.includes('/Subtype /Image'))!;
    expect(image).toContain('/Width 990 /Height 10 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode');
    expect(inflateSync(streamOf(image))).toHaveLength(990 * 10 * 3);
    expect(objects.map((o) => o.includes('stream\n') && !o.includes('/Image') ? streamOf(o).toString('latin1') : '').join('')).toContain('q 495 0 0 5 50 787 cm /Im1 Do Q');
  });

  it('refuses what it cannot convert', () => {
    expect(() => pngToPdfImage(Buffer.from('not a png'))).toThrow(PngError);
    const interlaced = pngFile(1, 1, [0, 0, 0, 255]);
    interlaced[8 + 8 + 12] = 1; // IHDR's interlace byte (its CRC is not checked)
    expect(() => pngToPdfImage(interlaced)).toThrow(/interlaced/);
    const huge = pngFile(1, 1, [0, 0, 0, 255]);
    huge.writeUInt32BE(MAX_PNG_PIXELS, 16);
    huge.writeUInt32BE(2, 20);
    expect(() => pngToPdfImage(huge)).toThrow(/outside what can be converted/);
  });
});
