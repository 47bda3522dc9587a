/**
 * The line guard in front of the SDK's stdio transport (src/faces/mcp/stdio-lines.ts): lines
 * split anywhere across chunks, whole valid messages passed on, every other line refused once.
 */
import { INVALID_REQUEST, PARSE_ERROR } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RefusedLine, refusalAnswer, StdioLineGuard } from '../../../src/faces/mcp/stdio-lines.ts';

/** Feeds `chunks` through a guard; what it passed on, and what it refused. */
async function guard(chunks: string[], maxLineBytes = 64): Promise<{ out: string; refused: RefusedLine[] }> {
  const refused: RefusedLine[] = [];
  const lines = new StdioLineGuard(maxLineBytes, (r) => refused.push(r));
  let out = '';
  lines.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const ended = new Promise((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(Buffer.from(chunk));
  lines.end();
  await ended;
  return { out, refused };
}

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const NOTE = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

describe('StdioLineGuard', () => {
  it('passes valid messages on whole, however the chunks split them; CRLF and blank lines as the SDK reads them', async () => {
    const text = `${PING}\r\n\n${NOTE}\n`;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: text.length }), { maxLength: 6 }), async (cuts) => {
        const at = [0, ...[...new Set(cuts)].sort((a, b) => a - b), text.length];
        const chunks = at.slice(1).map((end, i) => text.slice(at[i], end));
        const { out, refused } = await guard(chunks);
        expect(out).toBe(`${PING}\r\n${NOTE}\n`);
        expect(refused).toEqual([]);
      }),
    );
  });

  it('refuses a line that is not JSON, not a JSON-RPC message, or a batch, and goes on', async () => {
    const { out, refused } = await guard([`garbage\n{"hello":"world"}\n[1,2\n[${PING}]\n${PING}\n`]);
    expect(out).toBe(`${PING}\n`);
    expect(refused).toEqual([
      { code: PARSE_ERROR, reason: 'not_json', bytes: 7 },
      { code: INVALID_REQUEST, reason: 'not_jsonrpc', bytes: 17 },
      { code: PARSE_ERROR, reason: 'not_json', bytes: 4 },
      { code: INVALID_REQUEST, reason: 'batch', bytes: PING.length + 2 },
    ]);
    expect(refusalAnswer(refused[3]!, 64)).toMatchObject({
      id: null,
      error: { code: INVALID_REQUEST, message: expect.stringMatching(/batches are not accepted.*own line/) },
    });
  });

  it('refuses a line over the bound once, as soon as it passes it, skips its rest, and serves the next', async () => {
    const long = 'x'.repeat(50);
    // In one chunk, and spread over several with its newline in the same chunk as the next message.
    for (const chunks of [[`${long}${long}\n${PING}\n`], [long, long, long, `tail\n${PING}\n`]]) {
      const { out, refused } = await guard(chunks);
      expect(out).toBe(`${PING}\n`);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ code: PARSE_ERROR, reason: 'oversize' });
      expect(refused[0]!.bytes).toBeGreaterThan(64);
    }
    // Refused before its newline comes: the client hears at once.
    const refusedNow: RefusedLine[] = [];
    const open = new StdioLineGuard(64, (r) => refusedNow.push(r));
    open.write(Buffer.from(long));
    open.write(Buffer.from(long));
    await new Promise((resolve) => setImmediate(resolve));
    expect(refusedNow.map((r) => r.reason)).toEqual(['oversize']);
    open.destroy();
    // Exactly at the bound: a message, passed on.
    const padded = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"${'y'.repeat(64 - 58)}"}}`;
    expect(Buffer.byteLength(padded)).toBe(64);
    expect((await guard([`${padded}\n`])).out).toBe(`${padded}\n`);
  });

  it('answers as JSON-RPC 2.0 says: a null id, the code, a message saying what to do', () => {
    const answer = refusalAnswer({ code: PARSE_ERROR, reason: 'oversize', bytes: 99 }, 64) as {
      jsonrpc: string;
      id: null;
      error: { code: number; message: string };
    };
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(answer.error.message).toMatch(/longer than 64 bytes/);
  });
});
