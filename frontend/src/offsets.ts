// Character offsets on the wire count code points (Python's str indices); CodeMirror and JS strings
// count UTF-16 units. These convert between the two for text that has astral characters (emoji).

export function toCodePoints(text: string, utf16Offset: number): number {
  let count = 0;
  for (let i = 0; i < utf16Offset && i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) i++;
    count++;
  }
  return count;
}

export function toUtf16(text: string, codePointOffset: number): number {
  let i = 0;
  for (let count = 0; count < codePointOffset && i < text.length; count++) {
    const code = text.charCodeAt(i);
    i += code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return i;
}
