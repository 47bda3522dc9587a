import { describe, expect, it } from 'vitest';
import { otlpHeaderValues } from '../../src/server/run-gateway.ts';

describe('otlpHeaderValues', () => {
  it('reads the exporter header values, raw and URL-decoded, for the log redactor', () => {
    expect(
      otlpHeaderValues({
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%20123,x-tenant=t1',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Basic%20dXNlcg==,broken',
      }),
    ).toEqual(['abc%20123', 'abc 123', 't1', 't1', 'Basic%20dXNlcg==', 'Basic dXNlcg==']);
    expect(otlpHeaderValues({})).toEqual([]);
  });
});
