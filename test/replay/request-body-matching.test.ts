import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordings, type ReplayServer, startReplayServer } from '../../src/replay/index.ts';
import { requestBodyKey } from '../../src/replay/request-body-key.ts';

/**
 * SOAP calls differ only by their body (every call is a POST to one endpoint): recordings that
 * hold a request body are matched by it, XML as XML. A VCR cassette and a HAR file of the same
 * service, with XML bodies, replayed side by side.
 */
const ENDPOINT = 'https://svc.example.test/soap';
const envelope = (inner: string, header = '') =>
  `<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:q="urn:q"><soap:Header>${header}</soap:Header><soap:Body>${inner}</soap:Body></soap:Envelope>`;
const answer = (value: string) => envelope(`<q:R>${value}</q:R>`);

const VCR = `interactions:
- request:
    body: '${envelope('<q:Get><q:symbol>ACME</q:symbol></q:Get>')}'
    headers: { Content-Type: [text/xml] }
    method: POST
    uri: ${ENDPOINT}
  response:
    body: { string: '${answer('acme')}' }
    headers: { Content-Type: [text/xml] }
    status: { code: 200, message: OK }
- request:
    body: '${envelope('<q:Get><q:symbol>INIT</q:symbol></q:Get>')}'
    headers: { Content-Type: [text/xml] }
    method: POST
    uri: ${ENDPOINT}
  response:
    body: { string: '${answer('init')}' }
    headers: { Content-Type: [text/xml] }
    status: { code: 200, message: OK }
version: 1
`;

const HAR = JSON.stringify({
  log: {
    version: '1.2',
    creator: { name: 'test', version: '1' },
    entries: [
      {
        request: {
          method: 'POST',
          url: ENDPOINT,
          headers: [{ name: 'Content-Type', value: 'text/xml' }],
          postData: { mimeType: 'text/xml', text: envelope('<q:Add><a>1</a><b>2</b></q:Add>') },
        },
        response: {
          status: 200,
          headers: [{ name: 'Content-Type', value: 'text/xml' }],
          content: { mimeType: 'text/xml', text: answer('3') },
        },
      },
    ],
  },
});

let dir: string;
let server: ReplayServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sculptor-replay-xml-'));
  await writeFile(path.join(dir, 'quotes.yaml'), VCR);
  await writeFile(path.join(dir, 'add.har'), HAR);
  server = await startReplayServer(await loadRecordings([dir]));
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.url}/soap`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml' },
    body,
  });
  return { status: response.status, text: await response.text() };
}

describe('replaying SOAP calls by their XML body', () => {
  it('picks the recording whose body is the same XML, whatever the prefixes and white space', async () => {
    const differentlyWritten =
      '<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/">\n  <e:Header/>\n  <e:Body>\n    <x:Get xmlns:x="urn:q"><x:symbol>INIT</x:symbol></x:Get>\n  </e:Body>\n</e:Envelope>';
    expect((await post(differentlyWritten)).text).toContain('<q:R>init</q:R>');
    expect((await post(envelope('<q:Get><q:symbol>ACME</q:symbol></q:Get>'))).text).toContain(
      '<q:R>acme</q:R>',
    );
  });

  it('reads HAR postData the same way', async () => {
    expect((await post(envelope('<q:Add><a>1</a><b>2</b></q:Add>'))).text).toContain('<q:R>3</q:R>');
  });

  it('leaves the WS-Security header out of the comparison (its nonce changes on every call)', async () => {
    const security =
      '<wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><wsse:UsernameToken><wsse:Nonce>abc</wsse:Nonce></wsse:UsernameToken></wsse:Security>';
    expect((await post(envelope('<q:Get><q:symbol>ACME</q:symbol></q:Get>', security))).text).toContain(
      'acme',
    );
  });

  it('misses, saying so, when no recorded body matches: a value differs, or a namespace does', async () => {
    const since = server.requests.length;
    expect((await post(envelope('<q:Get><q:symbol>NOPE</q:symbol></q:Get>'))).status).toBe(404);
    expect(
      (await post(envelope('<q:Get><q:symbol>ACME</q:symbol></q:Get>').replace('urn:q', 'urn:other'))).status,
    ).toBe(404);
    expect(server.requests.slice(since).map((r) => r.matched)).toEqual([null, null]);
    expect(server.requests.at(-1)!.body).toContain('urn:other');
  });
});

describe('request body keys', () => {
  it('compares JSON as JSON, and text exactly', () => {
    expect(requestBodyKey('application/json', '{"a":1,"b":[2]}')).toBe(
      requestBodyKey(undefined, '{ "b": [2], "a": 1 }'),
    );
    expect(requestBodyKey('text/plain', 'a')).not.toBe(requestBodyKey('text/plain', 'a '));
  });

  it('never expands a DTD in a recorded body: such a body is compared as text', () => {
    const bomb =
      '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>';
    expect(requestBodyKey('text/xml', bomb)).toBe(`text:${bomb}`);
  });
});
