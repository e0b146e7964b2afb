// Control characters (Unicode's general category Cc: U+0000–U+001F, U+007F–U+009F, C0, DEL and C1):
// what a terminal may take for (part of) an escape sequence (ESC is U+001B, CSI U+009B). Text a
// client or an operator chose is shown with each as its `\uXXXX` escape wherever it is echoed: an
// Error body's field names, the key tool's labels and reasons.

/** Any control character: none may be in an animal's name (schemas.ts). */
export const CONTROL_CHARACTER = /\p{Cc}/u;

/** `text` with each control character written as its `\uXXXX` escape. */
export const escapeControlCharacters = (text: string): string =>
  text.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
