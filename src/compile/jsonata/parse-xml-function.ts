import { parseXml } from '../../xml/parse-xml.ts';
import { xmlToJson } from '../../xml/xml-to-json.ts';
import { Budget, currentBudget, type JsonataLimits } from './evaluation-budget.ts';

/**
 * `$parseXml(text)`: an XML document held in a string — what many SOAP services answer (the
 * weather service's DWML in `dwmlOut`), and some JSON APIs embed — read into JSON values by the
 * documented mapping (src/xml/xml-to-json.ts, without a schema), through the same safe parser
 * as every answer: no DTD, bounded depth, elements, names and texts. Its text is charged to the
 * evaluation's budget like any built-in's. Undefined in, undefined out.
 *
 * Refusals are `D9005`, whose message quotes nothing of the text.
 */
export function parseXmlFunction(limits: JsonataLimits) {
  return {
    _jsonata_function: true as const,
    implementation(text: unknown): unknown {
      if (text === undefined) return undefined;
      if (typeof text !== 'string') {
        throw { code: 'D9005', message: '$parseXml takes a string: the text of an XML document.' };
      }
      (currentBudget() ?? new Budget(limits)).charge('$parseXml', text.length);
      try {
        return xmlToJson(
          parseXml(text, { code: 'projection.failed', source: 'The text given to $parseXml' }),
        );
      } catch {
        throw {
          code: 'D9005',
          message:
            '$parseXml: the text is not XML Sculptor reads (well-formed, no DTD, within the XML limits).',
        };
      }
    },
  };
}
