import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SculptorError } from '../../src/errors/sculptor-error.ts';
import { closeMatches, findOperation } from '../../src/openapi/find-operation.ts';
import { loadOpenApi, type OpenApiDocument } from '../../src/openapi/load-openapi.ts';

const specs = join(import.meta.dirname, '../fixtures/specs');
const fixtures = join(import.meta.dirname, 'fixtures');

function failure(run: () => unknown): SculptorError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SculptorError);
    return error as SculptorError;
  }
  throw new Error('did not throw');
}

describe('findOperation', async () => {
  const nws = await loadOpenApi(join(specs, 'nws/api.weather.gov.openapi.json'));

  it('finds by operationId', () => {
    const op = findOperation(nws, 'point');
    expect(`${op.method} ${op.path}`).toBe('GET /points/{point}');
  });

  it.each(['GET /points/{point}', 'get /points/{point}', '  GET   /points/{point} '])(
    'finds by route %j',
    (ref) => {
      expect(findOperation(nws, ref).operationId).toBe('point');
    },
  );

  it('lists close operationIds for an unknown one', () => {
    const error = failure(() => findOperation(nws, 'gridpointForecast'));
    expect(error.code).toBe('compile.unknown_operation');
    expect(error.message).toContain("'gridpointForecast'");
    expect(error.message).toContain('gridpoint_forecast');
    const listed = error.message.split('Close matches: ')[1]!.replace(/\.$/, '').split(', ');
    expect(listed.length).toBeLessThanOrEqual(5);
    expect(listed[0]).toBe('gridpoint_forecast');
  });

  it('lists close routes for an unknown route', () => {
    const error = failure(() => findOperation(nws, 'GET /point/{point}'));
    expect(error.code).toBe('compile.unknown_operation');
    expect(error.message).toContain('GET /points/{point}');
    expect(failure(() => findOperation(nws, 'POST /points/{point}')).code).toBe('compile.unknown_operation');
  });

  it('says nothing is close when nothing is', () => {
    const error = failure(() => findOperation(nws, 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'));
    expect(error.code).toBe('compile.unknown_operation');
    expect(error.message).not.toContain('Close matches');
  });

  it('refuses an operationId two operations share', async () => {
    const doc: OpenApiDocument = await loadOpenApi(join(fixtures, 'duplicate-operation-id.yaml'));
    const error = failure(() => findOperation(doc, 'getThing'));
    expect(error.code).toBe('compile.ambiguous_operation');
    expect(error.message).toContain('GET /a');
    expect(error.message).toContain('GET /b');
    // The route still names each one.
    expect(findOperation(doc, 'GET /b').path).toBe('/b');
    expect(findOperation(doc, 'getOther').path).toBe('/c');
  });
});

describe('closeMatches', () => {
  it('ranks by distance ignoring case and separators, at most 5', () => {
    const ids = [
      'getPet',
      'get_pets',
      'GetPetById',
      'updatePet',
      'deletePet',
      'addPet',
      'findPetsByTags',
      'xyz',
    ];
    expect(closeMatches('getpet', ids)).toEqual(['getPet', 'get_pets', 'GetPetById']);
    expect(closeMatches('pet', ids)).toEqual(['addPet', 'getPet', 'get_pets', 'deletePet', 'updatePet']);
    expect(closeMatches('nothing-like-it', ids)).toEqual([]);
  });
});
