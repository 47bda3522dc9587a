import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSculptorError } from '../../src/errors/sculptor-error.ts';
import { loadRecordings, type RecordedExchange } from '../../src/replay/load-recordings.ts';
import { bodyBytes } from '../../src/replay/recorded-body.ts';
import { BODIES, CASSETTES, FIXTURES } from './recordings-paths.ts';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sculptor-replay-load-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function write(name: string, text: string | Buffer): Promise<string> {
  const file = join(scratch, name);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, text);
  return file;
}

async function loadError(paths: string[]): Promise<Error> {
  const error = await loadRecordings(paths).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('expected loadRecordings to fail');
  return error;
}

function countBySource(exchanges: RecordedExchange[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { source } of exchanges) {
    const file = source.slice(CASSETTES.length + 1, source.lastIndexOf('#'));
    counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
}

describe('loadRecordings: the shared vcrpy cassettes', () => {
  it('loads every interaction, in file-name order, with a method, an absolute url and a status', async () => {
    const exchanges = await loadRecordings([CASSETTES]);
    expect(exchanges).toHaveLength(10);
    expect(countBySource(exchanges)).toEqual({
      'nws/error_invalid_coords.yaml': 1,
      'nws/forecast_nyc.yaml': 2,
      'nws/point_international_error.yaml': 1,
      'nws/point_nyc.yaml': 1,
      'open-meteo-geocoding/geocode_no_results.yaml': 1,
      'open-meteo-geocoding/geocode_nyc.yaml': 2,
      'open-meteo-geocoding/geocoding_no_results.yaml': 1,
      'open-meteo-geocoding/geocoding_search_nyc.yaml': 1,
    });
    for (const exchange of exchanges) {
      expect(exchange.request.method).toBe('GET');
      expect(new URL(exchange.request.url).protocol).toBe('https:');
      expect(exchange.response.status).toBeGreaterThanOrEqual(200);
      expect(exchange.response.status).toBeLessThan(600);
    }
    expect(exchanges[1]).toMatchObject({
      source: `${CASSETTES}/nws/forecast_nyc.yaml#0`,
      request: {
        url: 'https://api.weather.gov/points/40.7128,-74.006',
        headers: { host: 'api.weather.gov' },
      },
      response: { status: 200, headers: { 'content-type': 'application/geo+json' } },
    });
    // Recorded GETs have an empty body in the cassette: no request body at all.
    expect(exchanges.every((exchange) => exchange.request.body === undefined)).toBe(true);
  });

  it('reads each body byte-for-byte as the extracted bodies in SOURCES.md record them', async () => {
    const exchanges = await loadRecordings([CASSETTES]);
    let compared = 0;
    for (const folder of ['nws', 'open-meteo-geocoding']) {
      for (const name of await readdir(join(BODIES, folder))) {
        // `<cassette>__<interaction>_<status>_<path>.json`
        const match = /^(.+?)__(\d+)_(\d{3})_/.exec(name);
        if (!match) continue;
        const source = `${CASSETTES}/${folder}/${match[1]}.yaml#${match[2]}`;
        const exchange = exchanges.find((candidate) => candidate.source === source);
        expect(exchange, source).toBeDefined();
        expect(exchange!.response.status).toBe(Number(match[3]));
        expect(bodyBytes(exchange!.response).equals(await readFile(join(BODIES, folder, name)))).toBe(true);
        compared++;
      }
    }
    expect(compared).toBe(10);
  });

  it('keeps recorded header values and merges names that differ only in case', async () => {
    const [exchange] = await loadRecordings([`${CASSETTES}/nws/point_international_error.yaml`]);
    expect(exchange!.response.headers['content-type']).toBe('application/problem+json');
    expect(exchange!.response.headers['x-edge-request-id']).toBe('3177914');
    expect(exchange!.response.headers['cache-control']).toBe('private, must-revalidate, max-age=86400');
  });

  it('loads a file once even when it is named twice or also lies in a named folder', async () => {
    const file = `${CASSETTES}/nws/point_nyc.yaml`;
    expect(await loadRecordings([file, file, `${CASSETTES}/nws`])).toHaveLength(5);
  });

  it('follows symlinks without looping', async () => {
    const dir = join(scratch, 'linked');
    await mkdir(dir, { recursive: true });
    await symlink(`${CASSETTES}/nws/point_nyc.yaml`, join(dir, 'point.yaml'));
    await symlink(dir, join(dir, 'loop'));
    await symlink(join(scratch, 'gone'), join(dir, 'dangling.yaml'));
    const exchanges = await loadRecordings([dir]);
    expect(exchanges.map((exchange) => exchange.source)).toEqual([`${dir}/point.yaml#0`]);
  });

  it('ignores files that are not recordings', async () => {
    // Plain JSON bodies, a README-like file, and YAML without `interactions:`.
    expect(await loadRecordings([BODIES])).toEqual([]);
    await write('not-recordings/notes.md', '# notes\n');
    await write('not-recordings/config.yaml', 'port: 8080\n');
    await write('not-recordings/tsconfig.json', '{ // comments are not JSON\n}\n');
    expect(await loadRecordings([join(scratch, 'not-recordings')])).toEqual([]);
  });
});

describe('loadRecordings: vcrpy details', () => {
  it('reads header values as PyYAML wrote them, not as YAML 1.2 numbers', async () => {
    const file = await write(
      'vcr/quirks.yaml',
      [
        'interactions:',
        '- request:',
        '    body: null',
        '    headers: {}',
        '    method: get',
        '    uri: http://backend.test/a?x=1',
        '  response:',
        '    body: {}',
        '    headers:',
        '      X-Request-Id: [1e5]',
        '      X-Hex: [0x1f]',
        '      Set-Cookie: ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"]',
        '    status: {code: 204, message: No Content}',
        'version: 1',
        '',
      ].join('\n'),
    );
    const [exchange] = await loadRecordings([file]);
    expect(exchange).toEqual({
      source: `${file}#0`,
      request: { method: 'GET', url: 'http://backend.test/a?x=1', headers: {} },
      response: {
        status: 204,
        headers: {
          'x-request-id': '1e5',
          'x-hex': '0x1f',
          'set-cookie': 'a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT\nb=2',
        },
        body: '',
      },
    });
  });

  it('decodes a !!binary body still compressed as its Content-Encoding says', async () => {
    const json = '{"temperature":"21 °C"}';
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);
    const file = await write(
      'vcr/binary.yaml',
      [
        'interactions:',
        '- request: {method: GET, uri: "http://backend.test/gz", headers: {}, body: ""}',
        '  response:',
        `    body: {string: !!binary "${gzipSync(json).toString('base64')}"}`,
        '    headers: {Content-Encoding: [gzip], Content-Type: [application/json]}',
        '    status: {code: 200, message: OK}',
        '- request: {method: GET, uri: "http://backend.test/png", headers: {}, body: ""}',
        '  response:',
        '    body:',
        '      string: !!binary |',
        `        ${png.toString('base64')}`,
        '    headers: {Content-Type: [image/png]}',
        '    status: {code: 200, message: OK}',
        '',
      ].join('\n'),
    );
    const [gz, binary] = await loadRecordings([file]);
    expect(gz!.response.body).toBe(json);
    expect(binary!.response.bodyEncoding).toBe('base64');
    expect(bodyBytes(binary!.response).equals(png)).toBe(true);
  });
});

describe('loadRecordings: HAR 1.2', () => {
  it('loads *.har and *.json HAR files, honouring content.encoding base64', async () => {
    const exchanges = await loadRecordings([FIXTURES]);
    expect(exchanges.map((exchange) => basename(exchange.source))).toEqual([
      'nws-icon.har#0',
      'open-meteo-forecast.json#0',
    ]);
    const [icon, forecast] = exchanges;
    const har = JSON.parse(await readFile(join(FIXTURES, 'nws-icon.har'), 'utf8'));
    const png = Buffer.from(har.log.entries[0].response.content.text, 'base64');
    expect(png.subarray(0, 8).equals(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'))).toBe(true);
    expect(icon!.response.bodyEncoding).toBe('base64');
    expect(bodyBytes(icon!.response).equals(png)).toBe(true);
    expect(icon!.response.headers['content-type']).toBe('image/png');
    // HTTP/2 pseudo-headers are not fields.
    expect(Object.keys(icon!.request.headers).some((name) => name.startsWith(':'))).toBe(false);

    expect(forecast!.request.url).toBe(
      'https://api.open-meteo.com/v1/forecast?latitude=40.7143&longitude=-74.006&current=temperature_2m,wind_speed_10m&timezone=America%2FNew_York',
    );
    expect(forecast!.response.bodyEncoding).toBeUndefined();
    expect(JSON.parse(forecast!.response.body).current_units.temperature_2m).toBe('°C');
  });

  it('skips entries that were never answered (status 0) and takes Content-Type from mimeType when missing', async () => {
    const file = await write(
      'har/browser.har',
      JSON.stringify({
        log: {
          version: '1.2',
          creator: { name: 'Firefox', version: '140.0' },
          entries: [
            {
              request: { method: 'GET', url: 'https://ads.test/pixel', headers: [] },
              response: {
                status: 0,
                headers: [],
                content: { size: 0, mimeType: '' },
                _error: 'net::ERR_BLOCKED_BY_CLIENT',
              },
            },
            {
              request: {
                method: 'POST',
                url: 'https://backend.test/items',
                headers: [],
                postData: { mimeType: 'application/json', text: '{"a":1}' },
              },
              response: {
                status: 201,
                headers: [],
                content: { size: 8, mimeType: 'application/json', text: '{"id":7}' },
              },
            },
          ],
        },
      }),
    );
    const exchanges = await loadRecordings([file]);
    expect(exchanges).toEqual([
      {
        source: `${file}#1`,
        request: { method: 'POST', url: 'https://backend.test/items', headers: {}, body: '{"a":1}' },
        response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":7}' },
      },
    ]);
  });
});

describe('loadRecordings: malformed files', () => {
  async function expectError(paths: string[], file: string, code: string): Promise<Error> {
    const error = await loadError(paths);
    expect(isSculptorError(error) && error.code).toBe(code);
    expect(error.message).toContain(file);
    return error;
  }

  it('names a cassette that is not valid YAML, with the line', async () => {
    const file = await write(
      'bad/broken.yaml',
      'interactions:\n- request: {method: GET, uri: "http://x.test/"\n',
    );
    const error = await expectError([join(scratch, 'bad')], file, 'load.yaml');
    expect(isSculptorError(error) && error.at?.file).toBe(file);
  });

  it('names a cassette whose interaction lacks a uri or a status, with the interaction', async () => {
    const noUri = await write(
      'bad2/no-uri.yaml',
      'interactions:\n- request: {method: GET}\n  response: {status: {code: 200}, headers: {}, body: {string: ""}}\n',
    );
    expect((await expectError([noUri], noUri, 'load.schema')).message).toContain(
      'interaction #0: request.uri',
    );
    const badStatus = await write(
      'bad2/bad-status.yaml',
      'interactions:\n- request: {method: GET, uri: "http://x.test/"}\n  response: {status: {code: OK}}\n',
    );
    const error = await expectError([badStatus], badStatus, 'load.schema');
    expect(isSculptorError(error) && error.at).toEqual({ file: badStatus, line: 3, column: 29 });
    const notList = await write('bad2/not-list.yml', 'interactions: {}\n');
    await expectError([notList], notList, 'load.schema');
  });

  it('names a HAR that is not JSON, has no entries, or has a malformed entry', async () => {
    const notJson = await write('bad3/truncated.har', '{"log": {"entries": [');
    await expectError([notJson], notJson, 'load.yaml');
    const noEntries = await write('bad4/empty.har', '{"log": {"version": "1.2"}}');
    await expectError([noEntries], noEntries, 'load.schema');
    const badBase64 = await write(
      'bad5/recording.json',
      JSON.stringify({
        log: {
          entries: [
            {
              request: { method: 'GET', url: 'https://x.test/' },
              response: { status: 200, content: { text: 'not base64!', encoding: 'base64' } },
            },
          ],
        },
      }),
    );
    expect((await expectError([join(scratch, 'bad5')], badBase64, 'load.schema')).message).toContain(
      'log.entries[0]',
    );
  });

  it('names a file that does not exist, and a JSON file that was named but does not parse', async () => {
    const missing = join(scratch, 'nowhere.yaml');
    await expectError([missing], missing, 'load.io');
    const named = await write('bad6/named.json', '{ nope');
    await expectError([named], named, 'load.yaml');
  });
});
