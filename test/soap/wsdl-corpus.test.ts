import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isSculptorError } from '../../src/errors/sculptor-error.ts';
import { loadWsdl, type WsdlDocument } from '../../src/soap/load-wsdl.ts';
import { childElements, parseXml } from '../../src/xml/parse-xml.ts';
import type { XmlSchema } from '../../src/xml/xml-schema.ts';
import { xmlToJson } from '../../src/xml/xml-to-json.ts';
import { reportFigures } from '../support/report-figures.ts';
import { sampleValue, schemaProblems } from '../support/xml-samples.ts';

/**
 * Every description of the corpus (test/fixtures/wsdl/, provenance in its SOURCES.md) either
 * loads with its operations listed, or fails with a clear error naming what is not supported —
 * pinned per file in test/cases/wsdl-corpus.yaml. Then, for every operation that loads, an
 * envelope is built from a value of every field of its input message and held to the schema
 * (names, namespaces, order, required fields, scalar types), and read back.
 */
const ROOT = `${import.meta.dirname}/../fixtures/wsdl`;

interface Expected {
  file: string;
  /** Loads: how many operations can be called, and how many are listed as not callable. */
  operations?: number;
  unsupported?: number;
  /** Fails to load: the error's code and words its message must contain. */
  error?: { code: string; says: string };
}

const expected = (
  parse(readFileSync(`${import.meta.dirname}/../cases/wsdl-corpus.yaml`, 'utf8')) as {
    descriptions: Expected[];
  }
).descriptions;

function descriptions(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((entry) => {
      const full = join(dir, entry);
      return statSync(full).isDirectory() ? descriptions(full) : entry.endsWith('.wsdl') ? [full] : [];
    })
    .sort();
}

const loaded = new Map<string, WsdlDocument>();

describe('the WSDL corpus', () => {
  const files = descriptions(ROOT).map((f) => relative(ROOT, f));

  it('has an expectation for every description, and none for a file that is gone', () => {
    expect(expected.map((e) => e.file).sort()).toEqual(files);
  });

  it.each(expected)('$file', async (entry) => {
    let doc: WsdlDocument | undefined;
    let failure: unknown;
    try {
      doc = await loadWsdl(join(ROOT, entry.file));
    } catch (error) {
      failure = error;
    }
    if (entry.error) {
      expect(isSculptorError(failure), String(failure)).toBe(true);
      expect((failure as { code: string }).code).toBe(entry.error.code);
      expect((failure as Error).message).toContain(entry.error.says);
      return;
    }
    expect(failure, String(failure)).toBeUndefined();
    expect({ operations: doc!.operations.length, unsupported: doc!.unsupported?.length ?? 0 }).toEqual({
      operations: entry.operations,
      unsupported: entry.unsupported ?? 0,
    });
    for (const op of doc!.operations) expect(op.operationId).toMatch(/\S/);
    for (const refused of doc!.unsupported ?? []) expect(refused.reason.length).toBeGreaterThan(10);
    loaded.set(entry.file, doc!);
  });

  it('builds, for every operation, an envelope the input schema accepts, and reads its body back', () => {
    let envelopes = 0;
    const problems: string[] = [];
    for (const [file, doc] of loaded) {
      for (const op of doc.operations) {
        const schema = op.requestBody?.schema as XmlSchema | undefined;
        const value = sampleValue(schema);
        const request = op.codec!.request(op, 'https://soap.example.test/service', {}, value);
        envelopes++;
        const envelope = parseXml(request.body!, {
          code: 'upstream.invalid_response',
          source: `${file} ${op.operationId}`,
        });
        const body = childElements(envelope).find((c) => c.local === 'Body')!;
        const style = doc.port!.operations.find((o) => o.name === op.operationId)!.style;
        const entries = childElements(body);
        // rpc: the operation's wrapper holds one accessor per part (the message object's fields).
        // document: one part is the Body's one element; several are the Body's elements, in order.
        const singlePart = style === 'document' && schema?.additionalProperties !== false;
        const holder = style === 'rpc' ? entries[0]! : singlePart ? entries[0]! : { ...body, attributes: [] };
        if (style === 'rpc') expect(holder.local, `${file} ${op.operationId}`).toBe(op.operationId);
        const found = schemaProblems(holder, schema);
        problems.push(...found.map((p) => `${file} ${op.operationId}: ${p}`));
        if (singlePart && found.length === 0)
          expect(normalise(xmlToJson(holder, schema))).toEqual(normalise(value));
      }
    }
    reportFigures(
      `wsdl corpus: ${envelopes} envelopes from ${loaded.size} descriptions held to their schemas`,
    );
    expect(problems).toEqual([]);
    expect(envelopes).toBeGreaterThan(50);
  });
});

/** Plain JSON (no prototypes or undefined members). */
function normalise(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
