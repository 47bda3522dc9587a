import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileBackends } from '../../src/compile/compile-backends.ts';
import type { OpenApiDocument } from '../../src/openapi/load-openapi.ts';
import type { BackendSpec } from '../../src/sculpt/load-backends.ts';
import { loadWsdl } from '../../src/soap/load-wsdl.ts';

const QUOTES = 'test/engine/fixtures/legacy/wsdl/quotes.wsdl';

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe('loading a WSDL description', () => {
  it('lists every port and takes its operations from the first SOAP port', async () => {
    const doc = await loadWsdl(QUOTES);
    expect(doc.ports.map((p) => [p.service, p.port, p.version, p.address])).toEqual([
      ['Quotes', 'QuotesSoap', '1.1', 'https://quotes.example.test/soap'],
      ['Quotes', 'QuotesSoap12', '1.2', 'https://quotes.example.test/soap12'],
    ]);
    expect(doc.operations.map((o) => [o.operationId, o.method, o.path, o.requestBody?.mediaType])).toEqual([
      ['GetQuote', 'POST', '#GetQuote', 'text/xml'],
      ['Whoami', 'POST', '#Whoami', 'text/xml'],
      ['Add', 'POST', '#Add', 'text/xml'],
    ]);
    expect(doc.operations[0]!.summary).toBe('The last price of a stock.');
    expect(doc.servers).toEqual(['https://quotes.example.test/soap']);
  });

  it('takes the port backends.yaml names, and says which ports there are when it names none of them', async () => {
    const doc = await loadWsdl(QUOTES, { port: 'QuotesSoap12' });
    expect(doc.operations[0]!.requestBody?.mediaType).toBe('application/soap+xml');
    const wrong = await refusal(loadWsdl(QUOTES, { port: 'Nope' }));
    expect(wrong.code).toBe('load.wsdl');
    expect(wrong.message).toContain('(ports: Quotes/QuotesSoap, Quotes/QuotesSoap12)');
    expect((await refusal(loadWsdl(QUOTES, { service: 'Other' }))).message).toContain("no service 'Other'");
  });

  it('gives the input message a schema: a wrapped element’s fields, or an rpc operation’s parts', async () => {
    const doc = await loadWsdl(QUOTES);
    const [getQuote, , add] = doc.operations;
    expect(JSON.parse(JSON.stringify(getQuote!.requestBody!.schema))).toMatchObject({
      xml: { name: 'GetQuote', namespace: 'urn:quotes' },
    });
    expect(add!.requestBody!.schema).toMatchObject({
      type: 'object',
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  it('refuses a local description that names an absolute path, or that pulls in too many documents', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-wsdl-'));
    try {
      const wsdl = (imports: string) =>
        `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:x">${imports}</definitions>`;
      await writeFile(path.join(dir, 'abs.wsdl'), wsdl('<import namespace="urn:y" location="/etc/passwd"/>'));
      expect((await refusal(loadWsdl(path.join(dir, 'abs.wsdl')))).message).toMatch(/only relative paths/);
      // A chain of imports: each file imports the next.
      for (let i = 0; i < 5; i++) {
        await writeFile(
          path.join(dir, `c${i}.wsdl`),
          wsdl(`<import namespace="urn:c${i + 1}" location="c${i + 1}.wsdl"/>`),
        );
      }
      const many = await refusal(loadWsdl(path.join(dir, 'c0.wsdl'), { limits: { maxDocuments: 3 } }));
      expect(many.message).toMatch(/more than 3 documents/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a WSDL named by URL, read at load through Sculptor’s HTTP client', () => {
  let server: Server;
  let url: string;
  const served: string[] = [];
  beforeAll(async () => {
    const quotes = await readFile(QUOTES, 'utf8');
    // The description split in two: the entry imports its types from a relative location.
    const [head, rest] = quotes.split('<wsdl:types>');
    const [types, tail] = rest!.split('</wsdl:types>');
    const schema = types!
      .trim()
      .replace(
        '<xs:schema ',
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:quotes" ',
      );
    const entry = `${head}<wsdl:types><xs:schema targetNamespace="urn:quotes:wrapper"><xs:import namespace="urn:quotes" schemaLocation="types/quotes.xsd"/></xs:schema></wsdl:types>${tail}`;
    server = createServer((req, res) => {
      served.push(req.url ?? '');
      const body = req.url === '/service?wsdl' ? entry : req.url === '/types/quotes.xsd' ? schema : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'text/xml' });
      res.end(body ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function spec(allowPrivate: boolean): BackendSpec {
    const at = { file: 'backends.yaml', line: 3, column: 11 };
    return {
      name: 'quotes',
      file: 'backends.yaml',
      description: { kind: 'wsdl', location: `${url}/service?wsdl`, at },
      baseUrl: `${url}/soap`,
      baseUrlAt: at,
      headers: {},
      auth: [],
      passThrough: [],
      oauth: undefined,
      tenancy: 'shared',
      tenancyAt: at,
      ownerParams: [],
      credentialsMissing: [],
      credentialId: 'none',
      allowPrivate,
    };
  }

  it('reads the description and its relative imports', async () => {
    served.length = 0;
    const { backends, errors } = await compileBackends(
      [spec(true)],
      new Map<string, Promise<OpenApiDocument>>(),
    );
    expect(errors).toEqual([]);
    expect(backends.get('quotes')!.document.operations.map((o) => o.operationId)).toEqual([
      'GetQuote',
      'Whoami',
      'Add',
    ]);
    expect(served).toEqual(['/service?wsdl', '/types/quotes.xsd']);
  });

  it('is refused by the egress policy when the address is loopback and the backend is not allowPrivate', async () => {
    served.length = 0;
    const { errors, broken } = await compileBackends(
      [spec(false)],
      new Map<string, Promise<OpenApiDocument>>(),
    );
    expect(errors.map((e) => [e.code, e.at?.line])).toEqual([['load.wsdl', 3]]);
    expect(errors[0]!.message).toContain('upstream.forbidden_address');
    expect(broken.has('quotes')).toBe(true);
    expect(served).toEqual([]);
  });
});
