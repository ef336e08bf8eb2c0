/**
 * UTF-8 byte length of a JS string, counted by hand because the core has no
 * Buffer or TextEncoder. A lone surrogate is encoded as U+FFFD (3 bytes), as
 * every UTF-8 encoder on the way to the wire does.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard (RFC 4648 section 4) base64 with padding, nothing else. */
export function isStandardBase64(text: string): boolean {
  return BASE64.test(text);
}

/** Decoded length of valid standard base64, without decoding it. */
export function base64DecodedLength(text: string): number {
  if (text.length === 0) return 0;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}
