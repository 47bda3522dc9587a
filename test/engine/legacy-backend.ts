import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A legacy backend on loopback for the engine's tests (fixtures/legacy/): the SOAP service of
 * wsdl/quotes.wsdl at /soap (1.1) and /soap12 (1.2), and the XML REST API of
 * openapi/catalog.yaml. It reads requests with regular expressions of its own, not with the
 * code under test, and answers as a real SOAP stack would: faults with HTTP 500 (1.1) or
 * 400/500 (1.2), WS-Security checked (PasswordText and PasswordDigest).
 *
 * GetQuote's symbol picks the answer: BAD → a Client/Sender fault, DOWN → a Server fault whose
 * string quotes the WS-Security password (a backend leaking it), LAUGHS → a billion-laughs
 * answer, DEEP → 10,000 nested elements, EMPTY → 200 with no body; anything else a quote.
 */
export const PASSWORD = 'correct-horse-battery-staple';

export interface LegacyRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LegacyBackend {
  url: string;
  requests: LegacyRequest[];
  close(): Promise<void>;
}

const ENV11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const ENV12 = 'http://www.w3.org/2003/05/soap-envelope';

const tag = (body: string, name: string): string | undefined =>
  new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:[\\w.-]+:)?${name}>`).exec(body)?.[1];

function envelope(ns: string, body: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${ns}"><s:Body>${body}</s:Body></s:Envelope>`;
}

function fault11(code: string, text: string): string {
  return envelope(
    ENV11,
    `<s:Fault><faultcode>s:${code}</faultcode><faultstring>${text}</faultstring></s:Fault>`,
  );
}

function fault12(code: string, text: string): string {
  return envelope(
    ENV12,
    `<s:Fault><s:Code><s:Value>s:${code}</s:Value></s:Code><s:Reason><s:Text xml:lang="en">${text}</s:Text></s:Reason></s:Fault>`,
  );
}

function quote(symbol: string): string {
  return (
    `<q:GetQuoteResponse xmlns:q="urn:quotes"><q:quote symbol="${symbol}"><q:price>12.50</q:price>` +
    `<q:volume>1500000</q:volume><q:open>1</q:open><q:tag>tech</q:tag></q:quote></q:GetQuoteResponse>`
  );
}

/** The WS-Security user the request proves, or why not. */
function wsUser(body: string): string | { refused: string } {
  const user = tag(body, 'Username');
  const password = /<(?:\w+:)?Password Type="[^"]*#(PasswordText|PasswordDigest)">([^<]*)</.exec(body);
  if (!user || !password) return { refused: 'no UsernameToken' };
  if (password[1] === 'PasswordText') return password[2] === PASSWORD ? user : { refused: 'wrong password' };
  const nonce = tag(body, 'Nonce') ?? '';
  const created = tag(body, 'Created') ?? '';
  const expected = createHash('sha1')
    .update(Buffer.from(nonce, 'base64'))
    .update(created)
    .update(PASSWORD)
    .digest('base64');
  return password[2] === expected ? `${user} (digest)` : { refused: 'digest does not match' };
}

export async function startLegacyBackend(): Promise<LegacyBackend> {
  const requests: LegacyRequest[] = [];

  const soap11 = (req: IncomingMessage, body: string): [number, string] => {
    if (!/^text\/xml/.test(req.headers['content-type'] ?? '')) return [415, ''];
    const action = req.headers.soapaction;
    if (action === '"urn:quotes#Whoami"') {
      const user = wsUser(body);
      return typeof user === 'string'
        ? [
            200,
            envelope(
              ENV11,
              `<q:WhoamiResponse xmlns:q="urn:quotes"><q:user>${user}</q:user></q:WhoamiResponse>`,
            ),
          ]
        : [500, fault11('Client', `authentication failed: ${user.refused}`)];
    }
    if (action === '"urn:quotes#Add"') {
      const a = Number(tag(body, 'a'));
      const b = Number(tag(body, 'b'));
      if (!/<(\w+:)?Add xmlns:\w+="urn:quotes:rpc"|<(\w+):Add\b/.test(body))
        return [500, fault11('Client', 'no Add wrapper')];
      return [
        200,
        envelope(ENV11, `<r:AddResponse xmlns:r="urn:quotes:rpc"><sum>${a + b}</sum></r:AddResponse>`),
      ];
    }
    if (action !== '"urn:quotes#GetQuote"') return [500, fault11('Client', `unknown SOAPAction ${action}`)];
    const symbol = tag(body, 'symbol') ?? '';
    if (symbol === 'BAD') return [500, fault11('Client', `unknown symbol ${symbol}`)];
    if (symbol === 'DOWN') return [500, fault11('Server', `database login failed for alice/${PASSWORD}`)];
    if (symbol === 'LAUGHS') {
      const entities = Array.from(
        { length: 9 },
        (_, i) =>
          `<!ENTITY l${i + 1} "&l${i};&l${i};&l${i};&l${i};&l${i};&l${i};&l${i};&l${i};&l${i};&l${i};">`,
      );
      return [
        200,
        `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY l0 "lol">${entities.join('')}]>${envelope(ENV11, '<x>&l9;</x>')}`,
      ];
    }
    if (symbol === 'DEEP') return [200, envelope(ENV11, `${'<d>'.repeat(10_000)}${'</d>'.repeat(10_000)}`)];
    if (symbol === 'EMPTY') return [200, ''];
    return [200, envelope(ENV11, quote(symbol))];
  };

  const soap12 = (req: IncomingMessage, body: string): [number, string] => {
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/soap\+xml/.test(type) || !type.includes('action="urn:quotes#GetQuote"'))
      return [415, ''];
    if (req.headers.soapaction !== undefined)
      return [400, fault12('Sender', 'SOAPAction is a SOAP 1.1 header')];
    const symbol = tag(body, 'symbol') ?? '';
    if (symbol === 'BAD') return [400, fault12('Sender', `unknown symbol ${symbol}`)];
    return [200, envelope(ENV12, quote(symbol))];
  };

  const books = (req: IncomingMessage, path: string, body: string): [number, string] => {
    if (req.method === 'POST') return [201, body];
    const id = decodeURIComponent(path.slice('/books/'.length));
    if (id === 'missing') return [404, '<error>no such book</error>'];
    return [
      200,
      `<?xml version="1.0"?><c:book xmlns:c="urn:catalog" id="${id}"><c:title>Dune</c:title><c:year>1965</c:year>` +
        `<c:authors><c:author>Frank Herbert</c:author></c:authors></c:book>`,
    ];
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    const [status, answer] =
      path === '/soap'
        ? soap11(req, body)
        : path === '/soap12'
          ? soap12(req, body)
          : path.startsWith('/books')
            ? books(req, path, body)
            : [404, ''];
    const type =
      path === '/soap12'
        ? 'application/soap+xml; charset=utf-8'
        : path === '/soap'
          ? 'text/xml; charset=utf-8'
          : 'application/xml';
    res.writeHead(status, answer === '' ? {} : { 'content-type': type });
    res.end(answer);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
