import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonToXml, type ValueProblem } from '../../src/xml/json-to-xml.ts';
import { parseXml } from '../../src/xml/parse-xml.ts';
import type { XmlSchema } from '../../src/xml/xml-schema.ts';
import { xmlToJson } from '../../src/xml/xml-to-json.ts';
import { writeXml } from '../../src/xml/write-xml.ts';

/**
 * The XML ↔ JSON mapping as data (test/cases/xml-mapping.yaml), the examples of
 * docs/SCULPT-FORMAT.md among them: each case's XML reads as its JSON, and — where it says
 * `writes` — its JSON written by the same schema is that XML again.
 */
interface MappingCase {
  name: string;
  xml: string;
  schema?: XmlSchema;
  json: unknown;
  writes?: boolean;
}

const cases = (
  parse(readFileSync(`${import.meta.dirname}/../cases/xml-mapping.yaml`, 'utf8')) as { cases: MappingCase[] }
).cases;

describe('the XML mapping (test/cases/xml-mapping.yaml)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const root = parseXml(c.xml, { code: 'upstream.invalid_response', source: c.name });
    expect(xmlToJson(root, c.schema)).toEqual(c.json);
    if (c.writes) {
      const problems: ValueProblem[] = [];
      const out = jsonToXml({ uri: root.uri, local: root.local }, c.json, c.schema, problems);
      expect(problems).toEqual([]);
      expect(writeXml(out!)).toBe(c.xml);
    }
  });
});
