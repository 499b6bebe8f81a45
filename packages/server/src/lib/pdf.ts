/**
 * Small PDF documents written directly (PDF 1.4, no dependency): pages of plain text, and a page holding
 * one image. Enough for evidence a processor takes only as documents (connectors/adyen), never a layout
 * engine. Text is set in Courier, a monospaced standard font every reader has, so a line of known length
 * always fits the page; characters outside Windows-1252 print as "?".
 */

const PAGE_WIDTH = 595; // A4, in points
const PAGE_HEIGHT = 842;
const MARGIN = 50;
const FONT_SIZE = 10;
const LEADING = 12;
/** Courier's glyphs are 0.6 em wide: the characters of one line between the margins. */
export const PDF_TEXT_COLUMNS = Math.floor((PAGE_WIDTH - 2 * MARGIN) / (FONT_SIZE * 0.6));
const LINES_PER_PAGE = Math.floor((PAGE_HEIGHT - 2 * MARGIN) / LEADING);

/** Windows-1252's characters between 0x80 and 0x9F (the rest of its upper half is Latin-1's). */
const WIN_ANSI_EXTRA: Readonly<Record<string, number>> = {
  '€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b,
  'Œ': 0x8c, 'Ž': 0x8e, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99,
  'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
};

/** One line as a PDF literal string: Windows-1252 bytes, with `\`, `(`, `)` and bytes above 0x7E escaped. */
function literal(line: string): string {
  let out = '(';
  for (const char of line) {
    const code = char.codePointAt(0)!;
    let byte: number;
    if (code >= 0x20 && code < 0x7f) byte = code;
    else if (code >= 0xa0 && code <= 0xff) byte = code;
    else byte = WIN_ANSI_EXTRA[char] ?? (code === 0x09 ? 0x20 : 0x3f);
    if (byte === 0x5c || byte === 0x28 || byte === 0x29) out += `\\${String.fromCharCode(byte)}`;
    else if (byte > 0x7e) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out})`;
}

/**
 * Wraps text at `columns` characters: paragraphs at line breaks, lines at spaces, words longer than a
 * line cut. @example wrapText('a b c', 3) // ['a b', 'c']
 */
export function wrapText(text: string, columns = PDF_TEXT_COLUMNS): string[] {
  const size = (s: string) => [...s].length;
  const lines: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const word of paragraph.split(/[ \t]+/).filter((w) => w.length > 0)) {
      let rest = word;
      while (rest.length > 0) {
        const room = line.length === 0 ? columns : columns - size(line) - 1;
        if (size(rest) <= room) {
          line = line.length === 0 ? rest : `${line} ${rest}`;
          rest = '';
        } else if (line.length > 0) {
          lines.push(line);
          line = '';
        } else {
          const chars = [...rest];
          lines.push(chars.slice(0, columns).join(''));
          rest = chars.slice(columns).join('');
        }
      }
    }
    lines.push(line);
  }
  return lines;
}

/** Assembles numbered objects into a file with its cross-reference table; object 1 is the catalog. */
function assemble(objects: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

function stream(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

/**
 * A text document: a title, then each section's heading (bold) and body, on as many A4 pages as needed.
 * @example textPdf('Evidence', [{ heading: 'Shipping carrier', body: 'Correios' }]) // a Buffer starting with %PDF-1.4
 */
export function textPdf(title: string, sections: readonly { heading: string; body: string }[]): Buffer {
  const lines: { text: string; bold: boolean }[] = wrapText(title).map((text) => ({ text, bold: true }));
  for (const section of sections) {
    lines.push({ text: '', bold: false });
    lines.push(...wrapText(section.heading).map((text) => ({ text, bold: true })));
    lines.push(...wrapText(section.body).map((text) => ({ text, bold: false })));
  }
  const pages: (typeof lines)[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_PAGE) pages.push(lines.slice(i, i + LINES_PER_PAGE));
  // Objects: 1 catalog, 2 pages, 3 and 4 the fonts, then a page and its content per page.
  const objects: (string | Buffer)[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>', '<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>'];
  const kids: string[] = [];
  for (const page of pages) {
    const pageNumber = objects.length + 1;
    kids.push(`${pageNumber} 0 R`);
    let content = `BT ${LEADING} TL ${MARGIN} ${PAGE_HEIGHT - MARGIN - FONT_SIZE} Td`;
    let bold: boolean | undefined;
    for (const line of page) {
      if (line.bold !== bold) content += ` /F${line.bold ? 2 : 1} ${FONT_SIZE} Tf`;
      bold = line.bold;
      content += `\n${literal(line.text)} Tj T*`;
    }
    content += '\nET';
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageNumber + 1} 0 R >>`);
    objects.push(stream('', Buffer.from(content, 'latin1')));
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  return assemble(objects);
}

/** An image's samples, 8 bits each, compressed with zlib (PDF's FlateDecode). */
export interface PdfImage {
  readonly width: number;
  readonly height: number;
  readonly colorSpace: 'DeviceRGB' | 'DeviceGray';
  readonly deflated: Buffer;
}

/**
 * A one-page A4 document showing an image, scaled down to fit within the margins (never up).
 * @example imagePdf({ width: 1, height: 1, colorSpace: 'DeviceGray', deflated: deflateSync(Buffer.from([255])) })
 */
export function imagePdf(image: PdfImage): Buffer {
  const scale = Math.min(1, (PAGE_WIDTH - 2 * MARGIN) / image.width, (PAGE_HEIGHT - 2 * MARGIN) / image.height);
  const width = +(image.width * scale).toFixed(2);
  const height = +(image.height * scale).toFixed(2);
  const content = `q ${width} 0 0 ${height} ${MARGIN} ${+(PAGE_HEIGHT - MARGIN - height).toFixed(2)} cm /Im1 Do Q`;
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>`,
    stream(`/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /${image.colorSpace} /BitsPerComponent 8 /Filter /FlateDecode`, image.deflated),
    stream('', Buffer.from(content, 'latin1')),
  ]);
}
