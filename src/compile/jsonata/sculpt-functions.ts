import type { JsonataLimits } from '../../config/jsonata-settings.ts';
import type { CostRow } from './cost-row.ts';
import type { JsonataFunction } from './jsonata-builtins.ts';
import { parseXmlFunction } from './parse-xml-function.ts';

/**
 * Sculptor's own functions, callable from every sculpt expression as `$name`. To add one: write
 * it beside this file (charging its work to `currentBudget()` before doing it, refusing with a
 * `D9xxx` code whose message quotes no data), and add it here with its cost row, which
 * docs/SECURITY.md's table then shows (a test keeps the two equal).
 */
export interface SculptFunction {
  /** Called as `$name`. */
  name: string;
  row: CostRow;
  make(limits: JsonataLimits): JsonataFunction;
}

export const SCULPT_FUNCTIONS: readonly SculptFunction[] = [
  {
    // An XML document in a string, read safely (SOAP services answer so).
    name: 'parseXml',
    row: {
      name: '$parseXml',
      kind: 'built-in',
      cost: 'text characters; the document within the XML limits (depth, elements, names, texts)',
      charged: 'the text’s length, before; the parser refuses past the XML limits as it streams',
    },
    make: parseXmlFunction,
  },
];
