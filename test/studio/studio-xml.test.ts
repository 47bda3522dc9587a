import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace, type Workspace } from '../../src/studio/studio-workspace.ts';

/** The Studio's trace of a SOAP step: the envelope it sent, and the answer as the step reads it. */
describe('the Studio on a SOAP tool (sculpts/ndfd, against its recordings)', () => {
  let workspace: Workspace;
  beforeAll(async () => {
    workspace = await openWorkspace({ dir: 'sculpts/ndfd', env: {} });
  });
  afterAll(async () => {
    await workspace?.close();
  });

  it('shows the step’s XML request and its parsed answer, and the playground reads the parsed one', async () => {
    const run = await workspace.run(
      'daily_forecast_at_coordinates',
      undefined,
      { latitude: '40.7143', longitude: '-74.006' },
      'recordings',
    );
    expect(run.outputs).toEqual({ high_f: 22, low_f: 16, forecast: 'Sunny' });
    const [step] = run.steps;
    expect(step!.request!.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><soap:Envelope /);
    expect(step!.request!.body).toContain('<latitude xsi:type="xsd:decimal">40.7143</latitude>');
    expect(typeof step!.response!.body).toBe('string'); // the envelope as it came
    const parsed = step!.response!.parsed as { dwmlByDayOut: string };
    expect(parsed.dwmlByDayOut).toMatch(/^<\?xml version="1.0"\?>\n<dwml /);
    const evaluated = await workspace.evaluate(
      run.id,
      'result:forecast',
      '$parseXml(dwmlByDayOut).data.location.point.latitude',
    );
    expect(evaluated).toEqual({ value: '40.71' });
  });
});
