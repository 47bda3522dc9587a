import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheStore } from '../../src/cache/cache-store.ts';
import { createMemoryStore } from '../../src/cache/memory-store.ts';
import { StepCache } from '../../src/cache/step-cache.ts';
import { NEGATIVE_TTL_MS } from '../../src/engine/run-step.ts';
import type { RecordedExchange } from '../../src/replay/index.ts';
import {
  cacheTrail,
  lookup,
  lookupError,
  NYC_CALLS,
  startWeather,
  type WeatherHarness,
} from './weather-harness.ts';

const DAY = 86_400_000;

interface Period {
  name: string;
  isDaytime: boolean;
  temperature: number;
  shortForecast: string;
}

/** A memory store that also records every TTL it is asked to keep a value for. */
function spyStore(): CacheStore & { ttls: number[] } {
  const store = createMemoryStore();
  const ttls: number[] = [];
  return Object.assign(Object.create(store) as CacheStore, {
    ttls,
    set(key: string, value: string, ttlMs: number) {
      ttls.push(ttlMs);
      store.set(key, value, ttlMs);
    },
    get: (key: string) => store.get(key),
    close: () => store.close(),
    stats: () => store.stats(),
    kind: store.kind,
  });
}

describe('lookup_weather_by_city through the engine, against the recordings', () => {
  let w: WeatherHarness;
  beforeAll(async () => {
    w = await startWeather();
  });
  afterAll(async () => {
    await w?.close();
  });

  it('answers the recorded forecast: period 1 today, the next daytime period tomorrow', async () => {
    // Checked against the recorded body itself, not only against numbers typed into the test.
    const recorded = JSON.parse(
      readFileSync(
        `${import.meta.dirname}/../fixtures/recordings/bodies/nws/forecast_nyc__1_200_gridpoints_OKX_33,35_forecast.json`,
        'utf8',
      ),
    ) as { properties: { periods: Period[] } };
    const [today, , wednesday] = recorded.properties.periods;
    expect([today!.name, today!.isDaytime, wednesday!.name, wednesday!.isDaytime]).toEqual([
      'Today',
      true,
      'Wednesday',
      true,
    ]);

    const engine = w.engine();
    const now = await lookup(engine, w.v2, { city: 'New York' });
    expect(now.outputs).toEqual({
      temperature_f: today!.temperature,
      forecast: today!.shortForecast,
      place: 'New York, New York, US',
    });
    expect(now.outputs.temperature_f).toBe(22);
    const tomorrow = await lookup(engine, w.v2, { city: 'New York', day: 'TOMORROW' });
    expect(tomorrow.outputs).toEqual({
      temperature_f: wednesday!.temperature,
      forecast: wednesday!.shortForecast,
      place: 'New York, New York, US',
    });
    expect(tomorrow.outputs.temperature_f).toBe(38);
  });

  it('a second identical invocation calls only the step that is not cached', async () => {
    const engine = w.engine(new StepCache(createMemoryStore(), { secret: 'engine-test-secret-0123456789' }));
    const first = w.replay.requests.length;
    const a = await lookup(engine, w.v2, { city: 'New York' });
    expect(w.callsSince(first).sort()).toEqual(Object.values(NYC_CALLS).sort());
    expect(cacheTrail(a.report)).toEqual(['geocode:miss:200', 'point:miss:200', 'forecast:off:200']);

    const second = w.replay.requests.length;
    const b = await lookup(engine, w.v2, { city: 'New York' });
    expect(w.callsSince(second)).toEqual([NYC_CALLS.forecast]);
    expect(cacheTrail(b.report)).toEqual(['geocode:hit:200', 'point:hit:200', 'forecast:off:200']);
    expect(b.outputs).toEqual(a.outputs);
    for (const report of [a.report, b.report]) {
      expect(report.outcome).toBe('ok');
      for (const step of report.steps) {
        expect(step.outcome).toBe('ok');
        expect(step.durationMs).toBeGreaterThan(0);
        expect(step.durationMs).toBeLessThanOrEqual(report.durationMs);
      }
    }
  });

  it('without a cache, the cached steps say bypass and every step calls its backend', async () => {
    const since = w.replay.requests.length;
    const { report } = await lookup(w.engine(), w.v2, { city: 'New York' });
    expect(cacheTrail(report)).toEqual(['geocode:bypass:200', 'point:bypass:200', 'forecast:off:200']);
    expect(w.callsSince(since)).toHaveLength(3);
  });

  it('the NWS 404 for a non-US point is the declared tool error, and is never cached', async () => {
    const engine = w.engine(new StepCache(createMemoryStore(), { secret: 'engine-test-secret-0123456789' }));
    const since = w.replay.requests.length;
    const first = await lookupError(engine, w.v2, { city: 'London' });
    const second = await lookupError(engine, w.v2, { city: 'London' });
    for (const { error } of [first, second]) {
      expect(error.code).toBe('tool.error');
      expect(error.message).toMatch(/^The National Weather Service only covers the United States; "London"/);
    }
    expect(w.callsSince(since).filter((c) => c.startsWith('GET /points/'))).toEqual([
      'GET /points/51.5074,-0.1278',
      'GET /points/51.5074,-0.1278',
    ]);
    expect(first.report.steps.map((s) => [s.id, s.outcome, s.cache, s.status])).toEqual([
      ['geocode', 'ok', 'miss', 200],
      ['point', 'tool_error', 'miss', 404],
      ['forecast', 'not_run', 'off', undefined], // never ran: the step it reads failed
    ]);
    expect(second.report.steps[0]!.cache).toBe('hit');
    expect(second.report.steps[1]!.cache).toBe('miss');
    expect(first.report.outcome).toBe('tool.error');
  });

  it('an empty geocode is a tool error that calls no NWS, cached 30 s rather than 30 days', async () => {
    const store = spyStore();
    const engine = w.engine(new StepCache(store, { secret: 'engine-test-secret-0123456789' }));
    const since = w.replay.requests.length;
    const city = 'xyznonexistentlocation12345';
    const first = await lookupError(engine, w.v2, { city });
    expect(first.error).toEqual({
      code: 'tool.error',
      message: `No place called "${city}" was found. Ask the user for a nearby larger city.`,
    });
    expect(store.ttls).toHaveLength(1);
    expect(store.ttls[0]).toBeGreaterThanOrEqual(NEGATIVE_TTL_MS * 0.9);
    expect(store.ttls[0]).toBeLessThanOrEqual(NEGATIVE_TTL_MS * 1.1);
    const again = await lookupError(engine, w.v2, { city });
    expect(again.report.steps[0]!.cache).toBe('hit');
    expect(w.callsSince(since)).toEqual([`GET /v1/search?name=${city}&count=5&format=json&language=en`]);

    // A place that exists keeps the step TTLs, jittered ±10 % (30 d is also the cap).
    await lookup(engine, w.v2, { city: 'New York' });
    const [geocodeTtl, pointTtl] = store.ttls.slice(1);
    expect(geocodeTtl).toBeGreaterThanOrEqual(27 * DAY);
    expect(geocodeTtl).toBeLessThanOrEqual(30 * DAY);
    expect(pointTtl).toBeGreaterThanOrEqual(6.3 * DAY);
    expect(pointTtl).toBeLessThanOrEqual(7.7 * DAY);
  });
});

describe('TOMORROW whatever the first forecast period is', () => {
  // DERIVED in code from the recorded forecast (nws/forecast_nyc.yaml #1): the same periods,
  // with the first ones dropped or replaced, as NWS serves them in the evening or after midnight.
  const withPeriods =
    (edit: (periods: Array<Record<string, unknown>>) => Array<Record<string, unknown>>) =>
    (exchanges: RecordedExchange[]): RecordedExchange[] =>
      exchanges.map((e) => {
        if (!e.request.url.endsWith('/gridpoints/OKX/33,35/forecast')) return e;
        const body = JSON.parse(e.response.body) as { properties: { periods: Record<string, unknown>[] } };
        body.properties.periods = edit(body.properties.periods);
        return { ...e, response: { ...e.response, body: JSON.stringify(body) } };
      });

  it.each([
    [
      'the evening: "Tonight" first',
      (p: Array<Record<string, unknown>>) => p.slice(1),
      { temperature_f: 16, forecast: 'Mostly Clear' },
      { temperature_f: 38, forecast: 'Mostly Sunny' }, // Wednesday
    ],
    [
      'after midnight: "Overnight" first, then the same date\'s day',
      (p: Array<Record<string, unknown>>) => [
        {
          ...p[1],
          name: 'Overnight',
          startTime: '2026-01-21T01:00:00-05:00',
          endTime: '2026-01-21T06:00:00-05:00',
          temperature: 15,
          shortForecast: 'Clear',
        },
        ...p.slice(2),
      ],
      { temperature_f: 15, forecast: 'Clear' },
      { temperature_f: 41, forecast: 'Mostly Sunny' }, // Thursday, not Wednesday (today)
    ],
  ])('%s', async (_label, edit, today, tomorrow) => {
    const w = await startWeather(withPeriods(edit));
    try {
      const engine = w.engine();
      expect((await lookup(engine, w.v2, { city: 'New York', day: 'TODAY' })).outputs).toMatchObject(today);
      expect((await lookup(engine, w.v2, { city: 'New York', day: 'TOMORROW' })).outputs).toMatchObject(
        tomorrow,
      );
      // Version 1 has no day: always the first period.
      expect((await lookup(engine, w.v1, { city: 'New York' })).outputs).toMatchObject(today);
    } finally {
      await w.close();
    }
  });
});
