import { describe, expect, it } from 'vitest';
import { readSettings, readTelemetrySettings, SettingsError } from '../../src/config/settings.ts';

describe('readSettings', () => {
  it('has a default for everything', () => {
    const s = readSettings({});
    expect(s).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      prefix: '',
      sculpts: 'sculpts',
      redisUrl: undefined,
      secretFromEnv: false,
      allowPrivateEgress: false,
      logLevel: 'info',
      drainMs: 8000,
      reloadOnChange: false,
      allowLockDrift: false,
    });
    expect(s.secret).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads every variable', () => {
    const s = readSettings({
      PORT: '9000',
      HOST: '127.0.0.1',
      SCULPTOR_PREFIX: '/a2t',
      SCULPTOR_SCULPTS: '/app/sculpts',
      REDIS_URL: 'rediss://cache:6380',
      SCULPTOR_SECRET: '0123456789abcdef',
      SCULPTOR_ALLOW_PRIVATE_EGRESS: 'true',
      LOG_LEVEL: 'warn',
      SCULPTOR_DRAIN_MS: '25000',
      SCULPTOR_RELOAD_ON_CHANGE: 'true',
      SCULPTOR_ALLOW_LOCK_DRIFT: '1',
    });
    expect(s).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      prefix: '/a2t',
      sculpts: '/app/sculpts',
      redisUrl: 'rediss://cache:6380',
      secret: '0123456789abcdef',
      secretFromEnv: true,
      allowPrivateEgress: true,
      logLevel: 'warn',
      drainMs: 25000,
      reloadOnChange: true,
      allowLockDrift: true,
    });
  });

  it('names every bad value in one message', () => {
    let error: unknown;
    try {
      readSettings({
        PORT: '70000',
        SCULPTOR_PREFIX: 'a2t',
        REDIS_URL: 'http://cache',
        SCULPTOR_SECRET: 'short',
        SCULPTOR_ALLOW_PRIVATE_EGRESS: 'yes',
        LOG_LEVEL: 'verbose',
        SCULPTOR_DRAIN_MS: '-1',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml',
        OTEL_TRACES_SAMPLER: 'sometimes',
        SCULPTOR_JSONATA_ISOLATION: 'yes',
        SCULPTOR_JSONATA_FAST_PATH: '0',
        SCULPTOR_JSONATA_WORKERS: 'many',
        SCULPTOR_OPENAPI_MAX_BYTES: '10MB',
        SCULPTOR_OPENAPI_MAX_DEPTH: '1',
        SCULPTOR_OPENAPI_MAX_SCHEMA_NODES: '-5',
        SCULPTOR_JSONATA_MAX_STRING: '100',
        SCULPTOR_JSONATA_MAX_WORK: 'lots',
        SCULPTOR_RELOAD_ON_CHANGE: 'on',
        SCULPTOR_ALLOW_LOCK_DRIFT: 'yes',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SettingsError);
    const message = (error as Error).message;
    for (const name of [
      'PORT',
      'SCULPTOR_PREFIX',
      'REDIS_URL',
      'SCULPTOR_SECRET',
      'SCULPTOR_ALLOW_PRIVATE_EGRESS',
      'LOG_LEVEL',
      'SCULPTOR_DRAIN_MS',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_SAMPLER',
      'SCULPTOR_JSONATA_ISOLATION',
      'SCULPTOR_JSONATA_FAST_PATH',
      'SCULPTOR_JSONATA_WORKERS',
      'SCULPTOR_OPENAPI_MAX_BYTES',
      'SCULPTOR_OPENAPI_MAX_DEPTH',
      'SCULPTOR_OPENAPI_MAX_SCHEMA_NODES',
      'SCULPTOR_JSONATA_MAX_STRING',
      'SCULPTOR_JSONATA_MAX_WORK',
      'SCULPTOR_RELOAD_ON_CHANGE',
      'SCULPTOR_ALLOW_LOCK_DRIFT',
    ]) {
      expect(message).toContain(`${name} must`);
    }
  });
});

describe('readTelemetrySettings: when traces are exported', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, false],
  ] as const)('%j → tracing %s', (env, tracing) => {
    expect(readTelemetrySettings(env).tracing).toBe(tracing);
  });

  it('checks the sampler argument and the exporter list', () => {
    expect(() =>
      readTelemetrySettings({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }),
    ).toThrow(/OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
    expect(
      readTelemetrySettings({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing,
    ).toBe(false);
    expect(() => readTelemetrySettings({ OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(
      /OTEL_TRACES_EXPORTER must list/,
    );
    expect(() => readTelemetrySettings({ OTEL_SDK_DISABLED: 'maybe' })).toThrow(/OTEL_SDK_DISABLED must be/);
  });
});
