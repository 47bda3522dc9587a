/**
 * TLS-only backends outside test and demo mode (RELIABILITY B1): a serving
 * gateway refuses to load a backend whose baseUrl is http://, unless the
 * backend is declared internal (allowPrivate), or the deployment says so
 * (SCULPTOR_ALLOW_PRIVATE_EGRESS, SCULPTOR_ALLOW_HTTP_BACKENDS).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../src/config/settings.ts';
import { SculptLoadError } from '../../src/errors/sculptor-error.ts';
import { startGateway } from '../../src/server/start-gateway.ts';

const FIXTURE = 'test/hardening/fixtures/sculpts';
const FIXTURE_ENV = {
  FAULT_URL: 'http://backend.example.com',
  HOSTILE_URL: 'https://hostile.example.com',
  FAULTY_URL: 'https://faulty.example.com',
  TRIPPING_URL: 'https://tripping.example.com',
  KEYED_TOKEN: 'unused-token',
};

/** Starts a gateway as production would (no test-only allowances), then closes it; returns the load error codes. */
async function loadCodes(
  sculpts: string,
  env: Record<string, string>,
): Promise<Array<{ code: string; file: string; line: number | undefined }>> {
  try {
    const gateway = await startGateway({
      settings: readSettings(env, { port: 0, host: '127.0.0.1', sculpts, secret: 'tls-only-secret-0123456' }),
      env,
    });
    await gateway.close();
    return [];
  } catch (err) {
    if (!(err instanceof SculptLoadError)) throw err;
    return err.errors.map((e) => ({
      code: e.code,
      file: (e.at?.file ?? '').replace(/^.*\/test\//, 'test/'),
      line: e.at?.line,
    }));
  }
}

describe('a serving gateway and plain-HTTP backends', () => {
  it('refuses to load http:// backends by default, naming each where its baseUrl is set', async () => {
    const codes = await loadCodes(FIXTURE, FIXTURE_ENV);
    // fault and keyed are http://; hostile is https here.
    expect(codes).toEqual([
      { code: 'load.insecure_url', file: `${FIXTURE}/backends.yaml`, line: 9 },
      { code: 'load.insecure_url', file: `${FIXTURE}/backends.yaml`, line: 16 },
    ]);
  });

  it('loads them with SCULPTOR_ALLOW_HTTP_BACKENDS=true or SCULPTOR_ALLOW_PRIVATE_EGRESS=true', async () => {
    expect(await loadCodes(FIXTURE, { ...FIXTURE_ENV, SCULPTOR_ALLOW_HTTP_BACKENDS: 'true' })).toEqual([]);
    expect(await loadCodes(FIXTURE, { ...FIXTURE_ENV, SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true' })).toEqual([]);
  });

  it('serves the samples with their https defaults and no allowance (the README start command), but not pointed at http://', async () => {
    expect(await loadCodes('sculpts', {})).toEqual([]);
    const codes = await loadCodes('sculpts', { PETSTORE_BASE_URL: 'http://petstore.example.com/v2' });
    // The error points at the backend's baseUrl line, wherever the file's comments put it.
    const baseUrlLine =
      readFileSync('sculpts/petstore/backends.yaml', 'utf8')
        .split('\n')
        .findIndex((l) => l.trimStart().startsWith('baseUrl:')) + 1;
    expect(codes).toEqual([
      {
        code: 'load.insecure_url',
        file: expect.stringMatching(/petstore\/backends\.yaml$/),
        line: baseUrlLine,
      },
    ]);
  });

  it('SCULPTOR_ALLOW_HTTP_BACKENDS is false by default and validated', () => {
    expect(readSettings({}).allowHttpBackends).toBe(false);
    expect(readSettings({ SCULPTOR_ALLOW_HTTP_BACKENDS: 'true' }).allowHttpBackends).toBe(true);
    expect(() => readSettings({ SCULPTOR_ALLOW_HTTP_BACKENDS: 'sometimes' })).toThrow(SettingsError);
  });
});
