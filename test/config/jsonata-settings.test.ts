/**
 * The `SCULPTOR_JSONATA_*` and `SCULPTOR_TOOL_SUSPEND_*` settings, parsed in `config/` and read
 * by the compiler: defaults, accepted values, and every bad variable named.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ISOLATION,
  jsonataIsolation,
  jsonataSettingsProblems,
  poolOptionsFromEnv,
  readJsonataSettings,
} from '../../src/config/jsonata-settings.ts';

describe('settings', () => {
  it('SCULPTOR_JSONATA_ISOLATION: off, worker or process, anything else refused', () => {
    expect(jsonataIsolation({})).toBe(DEFAULT_ISOLATION);
    expect(jsonataIsolation({ SCULPTOR_JSONATA_ISOLATION: 'process' })).toBe('process');
    expect(jsonataIsolation({ SCULPTOR_JSONATA_ISOLATION: 'off' })).toBe('off');
    expect(jsonataIsolation({ SCULPTOR_JSONATA_ISOLATION: 'worker' })).toBe('worker');
    expect(() => jsonataIsolation({ SCULPTOR_JSONATA_ISOLATION: 'true' })).toThrow(
      /SCULPTOR_JSONATA_ISOLATION must be 'process', 'worker' or 'off' \(got 'true'\)/,
    );
  });

  it('jsonataSettingsProblems names every bad SCULPTOR_JSONATA_* variable, and none when all are fine', () => {
    expect(jsonataSettingsProblems({})).toEqual([]);
    expect(
      jsonataSettingsProblems({
        SCULPTOR_JSONATA_ISOLATION: 'worker',
        SCULPTOR_JSONATA_FAST_PATH: 'false',
        SCULPTOR_JSONATA_WORKERS: '3',
      }),
    ).toEqual([]);
    expect(
      jsonataSettingsProblems({
        SCULPTOR_JSONATA_ISOLATION: 'on',
        SCULPTOR_JSONATA_FAST_PATH: 'off',
        SCULPTOR_JSONATA_WORKER_TIMEOUT_MS: '5',
      }),
    ).toEqual([
      "SCULPTOR_JSONATA_ISOLATION must be 'process', 'worker' or 'off' (got 'on').",
      "SCULPTOR_JSONATA_FAST_PATH must be true or false (got 'off').",
      "SCULPTOR_JSONATA_WORKER_TIMEOUT_MS must be a whole number from 10 to 600000 (got '5').",
    ]);
  });

  it('pool size, heap and cap: G6 defaults (2, 128 MiB), bad values named', () => {
    expect(poolOptionsFromEnv({})).toMatchObject({ size: 2, heapMb: 128, capMs: 1_000 });
    expect(
      poolOptionsFromEnv({
        SCULPTOR_JSONATA_WORKERS: '4',
        SCULPTOR_JSONATA_WORKER_HEAP_MB: '256',
        SCULPTOR_JSONATA_WORKER_TIMEOUT_MS: '2000',
      }),
    ).toMatchObject({ size: 4, heapMb: 256, capMs: 2_000 });
    expect(() =>
      poolOptionsFromEnv({ SCULPTOR_JSONATA_WORKERS: '0', SCULPTOR_JSONATA_WORKER_HEAP_MB: 'lots' }),
    ).toThrow(/SCULPTOR_JSONATA_WORKERS must be .* SCULPTOR_JSONATA_WORKER_HEAP_MB must be/);
  });

  it('tool suspension: defaults, and bad values named', () => {
    expect(readJsonataSettings({}).settings.suspension).toEqual({
      breaches: 5,
      windowMs: 60_000,
      suspendMs: 60_000,
    });
    expect(jsonataSettingsProblems({ SCULPTOR_TOOL_SUSPEND_BREACHES: '-1' })).toEqual([
      "SCULPTOR_TOOL_SUSPEND_BREACHES must be a whole number from 0 to 1000000 (got '-1').",
    ]);
  });
});
