/** Hand-built operations for request-building tests, with OAS 3 defaults. */
import type { Operation, OperationParameter, ParameterLocation } from '../../src/openapi/load-openapi.ts';

export function param(
  name: string,
  location: ParameterLocation,
  extra: Partial<OperationParameter> = {},
): OperationParameter {
  const style = location === 'query' || location === 'cookie' ? 'form' : 'simple';
  return {
    name,
    in: location,
    required: location === 'path',
    style,
    explode: style === 'form',
    allowReserved: false,
    ...extra,
  };
}

export function operation(
  path: string,
  parameters: OperationParameter[],
  extra: Partial<Operation> = {},
): Operation {
  return {
    method: 'GET',
    path,
    parameters,
    responses: { '200': { mediaTypes: ['application/json'] } },
    security: [],
    deprecated: false,
    ...extra,
  };
}
