import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkSculpts } from '../../src/designer/check-sculpts.ts';
import { initSculpt } from '../../src/designer/init-sculpt.ts';
import { formatOperations, formatPorts, listWsdlOperations } from '../../src/designer/list-operations.ts';
import { loadWsdl } from '../../src/soap/load-wsdl.ts';

const NDFD = 'sculpts/ndfd/wsdl/ndfdXML.wsdl';
const dirs: string[] = [];
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sculptor-init-wsdl-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('sculptor init --wsdl', () => {
  it('scaffolds a SOAP operation: the message fields as inputs and constants, a wsdl backend, no check error', async () => {
    const out = await folder();
    const result = await initSculpt({ wsdl: NDFD, operation: 'NDFDgenByDay', out });
    expect(result.toolName).toBe('ndf_dgen_by_day');
    const backends = parse(await readFile(result.backendsFile, 'utf8')) as {
      backends: Record<string, Record<string, string>>;
    };
    expect(Object.values(backends.backends)[0]).toEqual({
      wsdl: path.relative(out, path.resolve(NDFD)),
      baseUrl: '${NDFDXML_BASE_URL:-http://graphical.weather.gov/xml/SOAP_server/ndfdXMLserver.php}',
    });
    const sculpt = parse(await readFile(result.sculptFile, 'utf8')) as {
      inputs: Record<string, { type: string; values?: object }>;
      steps: Array<{ call: string; body: string }>;
    };
    expect(sculpt.steps[0]!.call).toBe('ndfdxml#NDFDgenByDay');
    expect(sculpt.inputs.unit).toMatchObject({
      type: 'enum',
      values: { E: expect.any(String), M: expect.any(String) },
    });
    expect(sculpt.steps[0]!.body).toContain('"Unit": $lookup');
    const check = await checkSculpts(out, {});
    expect(check.findings.filter((f) => f.severity === 'error').map((f) => f.error.format())).toEqual([]);
    // …and the REVIEW mark about a SOAP call's effects is among what --strict asks to deal with.
    expect(await readFile(result.sculptFile, 'utf8')).toContain('a SOAP call is a POST whatever it does');
  });

  it('scaffolds every operation of the flagship description and the quotes service without a check error', async () => {
    for (const wsdl of [NDFD, 'test/engine/fixtures/legacy/wsdl/quotes.wsdl']) {
      const doc = await loadWsdl(wsdl);
      for (const op of doc.operations) {
        const out = await folder();
        await initSculpt({ wsdl, operation: op.operationId!, out });
        const check = await checkSculpts(out, {});
        expect(
          check.findings.filter((f) => f.severity === 'error').map((f) => f.error.format()),
          `${wsdl} ${op.operationId}`,
        ).toEqual([]);
      }
    }
  });

  it('says which operation cannot be called, and why, instead of "no such operation"', async () => {
    const out = await folder();
    const refused = await initSculpt({
      wsdl: 'test/fixtures/wsdl/node-soap/missing_message_definition.wsdl',
      operation: 'GetWeather',
      out,
    }).catch((e: unknown) => e as { code: string; message: string });
    expect(refused).toMatchObject({ code: 'compile.unsupported_operation' });
    expect((refused as { message: string }).message).toContain('output message GetWeatherResponse');
  });
});

describe('sculptor operations --wsdl', () => {
  it('lists a WSDL’s ports and operations, the port used marked', async () => {
    const listing = await listWsdlOperations('test/engine/fixtures/legacy/wsdl/quotes.wsdl', {
      port: 'QuotesSoap12',
    });
    expect(listing.ports.map((p) => [p.name, p.version, p.used])).toEqual([
      ['Quotes/QuotesSoap', 'SOAP 1.1', false],
      ['Quotes/QuotesSoap12', 'SOAP 1.2', true],
    ]);
    expect(listing.operations.map((o) => o.ref)).toEqual(['GetQuote', 'Whoami', 'Add']);
    expect(formatPorts(listing.ports)).toContain(
      '* Quotes/QuotesSoap12  SOAP 1.2  https://quotes.example.test/soap12',
    );
    expect(formatOperations(listing.operations)[0]).toMatch(
      /^POST {2}#GetQuote {2}GetQuote {2}The last price of a stock\.$/,
    );
  });

  it('filters them like an OpenAPI document’s', async () => {
    const listing = await listWsdlOperations(NDFD, { filter: 'zip' });
    expect([listing.total, listing.operations.map((o) => o.ref)]).toEqual([12, ['LatLonListZipCode']]);
  });

  it('lists what cannot be called with its reason', async () => {
    const listing = await listWsdlOperations('test/fixtures/wsdl/node-soap/binding-exception.wsdl');
    expect(listing.unsupported.length).toBe(3);
    expect(listing.unsupported[0]).toEqual({
      name: 'LoginUser',
      reason: "type ID is not declared in the description's schemas",
    });
  });
});
