// What Node's HTTP parser had read of a request it refused (answerClientError): the request line,
// for the access log line, and the body size the headers declared, for the payload limit. Read
// from the bytes the parser failed on (`rawPacket`, the chunk it was given, and `bytesParsed`, where
// in it it stopped); nothing else of the headers is kept: their values may be secrets.
import { maxHeaderSize } from 'node:http';

export interface RequestLine {
  method: string;
  /** As sent. */
  target: string;
  protocol: string;
}

export interface RefusedRequest {
  /** Undefined when the chunk does not hold it whole (it came in an earlier one, or not yet). */
  line: RequestLine | undefined;
  /** Content-Length, when the request line and one such header are in the chunk. */
  declaredLength: number | undefined;
}

/** RFC 9112's request-line: a method token, the target, the version. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) (HTTP\/\d\.\d)$/;
const CONTENT_LENGTH = /^content-length:[ \t]*(\d+)[ \t]*$/i;

/** What a parse error's bytes say of the request that failed (Node sets rawPacket and bytesParsed on parse errors). */
export const refusedRequest = (error: Error & { rawPacket?: unknown; bytesParsed?: unknown }): RefusedRequest => {
  const { rawPacket: packet, bytesParsed: at } = error;
  if (!Buffer.isBuffer(packet) || typeof at !== 'number') return { line: undefined, declaredLength: undefined };
  // A request's line and headers are within maxHeaderSize of where the parser stopped in them.
  const from = Math.max(0, at - maxHeaderSize);
  const text = packet.toString('latin1', from, Math.min(packet.length, at + maxHeaderSize));
  const stopped = at - from;
  // The failing request begins after the last blank line before where the parser stopped (that of
  // an earlier pipelined request), or with the chunk. Its header lines are those ended by CRLF.
  const blank = stopped < 4 ? -1 : text.lastIndexOf('\r\n\r\n', stopped - 4);
  const start = blank === -1 ? 0 : blank + 4;
  const end = text.indexOf('\r\n\r\n', start);
  const lines = text.slice(start, end === -1 ? undefined : end).split('\r\n');
  if (end === -1) lines.pop();
  // A whole line or nothing: a chunk that begins past the request line begins with a header, and
  // bytes before a method are an earlier request's body; neither is ever taken for a method or a path.
  const match = REQUEST_LINE.exec(lines[0] ?? '');
  if (!match) return { line: undefined, declaredLength: undefined };
  const lengths = lines.slice(1).flatMap((line) => CONTENT_LENGTH.exec(line)?.[1] ?? []);
  return {
    line: { method: match[1]!, target: match[2]!, protocol: match[3]! },
    declaredLength: lengths.length === 1 ? Number(lengths[0]) : undefined,
  };
};
