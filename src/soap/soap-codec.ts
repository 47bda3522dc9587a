/**
 * One SOAP operation as the engine runs it (an OperationCodec): the step's `body` becomes the
 * input message inside an envelope, posted to the backend's base URL with the SOAPAction and
 * content type of the binding's SOAP version; the answer's envelope is read, its body unwrapped
 * into the output message, or its fault reported.
 *
 * The message as JSON (both ways): document style with one part — the usual, "wrapped" or
 * bare — is that part's element content; several parts, or rpc style, are an object of the
 * parts by name. rpc wraps the parts in an element named after the operation (its response:
 * `…Response`), in the `soap:body` namespace; rpc/encoded adds `xsi:type` to each accessor.
 */
import { type InputProblem, SculptorError } from '../errors/sculptor-error.ts';
import type { BuiltRequest } from '../openapi/build-request.ts';
import type { AnswerIn, DecodedAnswer, OperationCodec } from '../openapi/operation-codec.ts';
import { jsonToXml, type ValueProblem } from '../xml/json-to-xml.ts';
import { childElements, parseXml, type XmlElement } from '../xml/parse-xml.ts';
import { type QualifiedName, XSI, type XmlSchema } from '../xml/xml-schema.ts';
import { xmlToJson } from '../xml/xml-to-json.ts';
import { element, type OutElement, writeXml } from '../xml/write-xml.ts';
import { readFault } from './soap-fault.ts';
import { NS, SOAP_VERSIONS, type SoapVersion } from './soap-namespaces.ts';

/** One part of a message: the element it is written as, and the schema of its content. */
export interface PartShape {
  name: string;
  element: QualifiedName;
  schema: XmlSchema | undefined;
}

/** A message as it sits in the SOAP body. */
export interface MessageShape {
  /** rpc: the element wrapping the parts. */
  wrapper: QualifiedName | undefined;
  parts: PartShape[];
  /** rpc/encoded: each accessor carries `xsi:type`. */
  encoded: boolean;
}

export interface SoapCall {
  name: string;
  version: SoapVersion;
  soapAction: string;
  input: MessageShape;
  /** Absent for a one-way operation: its answer has no body to read. */
  output: MessageShape | undefined;
}

export function soapCodec(call: SoapCall): OperationCodec {
  return {
    request: (_op, baseUrl, params, body) => buildSoapRequest(call, baseUrl, params, body),
    answer: (_op, response) => readSoapAnswer(call, response),
  };
}

/** The message as one JSON value: a document-style single part is its value, otherwise an object of parts. */
function singlePart(message: MessageShape): boolean {
  return message.wrapper === undefined && message.parts.length === 1;
}

function buildSoapRequest(
  call: SoapCall,
  baseUrl: string,
  params: Record<string, unknown>,
  body: unknown,
): BuiltRequest {
  const keys = Object.keys(params);
  if (keys.length > 0) {
    throw new SculptorError(
      'compile.unknown_param',
      `SOAP operation ${call.name} takes its message in body, not params (got ${keys.join(', ')}).`,
    );
  }
  const { input } = call;
  const problems: ValueProblem[] = [];
  const children: OutElement[] = [];
  if (singlePart(input)) {
    const part = input.parts[0]!;
    const out = jsonToXml(part.element, body ?? {}, part.schema, problems, { xsiTypes: input.encoded });
    if (out) children.push(out);
  } else if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    problems.push({
      path: '',
      reason: `must be an object of the message's parts (${input.parts.map((p) => p.name).join(', ')})`,
    });
  } else {
    const value = (body ?? {}) as Record<string, unknown>;
    for (const part of input.parts) {
      const out = jsonToXml(
        part.element,
        value[part.name],
        part.schema,
        problems,
        { xsiTypes: input.encoded },
        part.name,
      );
      if (out) children.push(out);
      else if (value[part.name] === undefined && input.wrapper)
        problems.push({ path: part.name, reason: 'is required' });
    }
    const known = new Set(input.parts.map((p) => p.name));
    for (const key of Object.keys(value)) {
      if (!known.has(key) && value[key] !== undefined) {
        problems.push({
          path: key,
          reason: `is not a part of the message (parts: ${[...known].join(', ') || 'none'})`,
          unknownField: true,
        });
      }
    }
  }
  const unknown = problems.filter((p) => p.unknownField);
  if (unknown.length > 0) {
    throw new SculptorError(
      'compile.unknown_param',
      `SOAP operation ${call.name}: ${unknown.map((p) => `${p.path} ${p.reason}`).join('; ')}.`,
    );
  }
  if (problems.length > 0) {
    const list: InputProblem[] = problems.map((p) => ({ parameter: p.path || 'body', reason: p.reason }));
    throw new SculptorError(
      'input.invalid',
      `Invalid parameters: ${list.map((p) => `${p.parameter}: ${p.reason}`).join('; ')}.`,
      { problems: list },
    );
  }

  const version = SOAP_VERSIONS[call.version];
  const content: OutElement[] = input.wrapper
    ? [
        element(
          input.wrapper.uri,
          input.wrapper.local,
          children,
          input.encoded ? [{ uri: version.envelope, local: 'encodingStyle', value: NS.soapEncoding }] : [],
        ),
      ]
    : children;
  const envelope = element(version.envelope, 'Envelope', [
    element(version.envelope, 'Header'),
    element(version.envelope, 'Body', content),
  ]);
  const prefixes: Record<string, string> = { [version.envelope]: 'soap', [XSI]: 'xsi', [NS.xsd]: 'xsd' };
  const headers: Record<string, string> =
    call.version === '1.1'
      ? { 'content-type': `${version.contentType}; charset=utf-8`, soapaction: `"${call.soapAction}"` }
      : {
          'content-type': `${version.contentType}; charset=utf-8${call.soapAction ? `; action="${call.soapAction}"` : ''}`,
        };
  return {
    method: 'POST',
    url: endpoint(baseUrl),
    headers,
    body: writeXml(envelope, { prefixes, declaration: true }),
  };
}

/** The base URL is configuration (checked when backends load): the request goes to it as it is. */
function endpoint(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SculptorError('internal', 'The backend base URL is not an absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SculptorError('internal', 'The backend base URL is not an absolute http(s) URL.');
  }
  return url.toString();
}

function readSoapAnswer(call: SoapCall, response: AnswerIn): DecodedAnswer {
  const ok = response.status >= 200 && response.status < 300;
  if (typeof response.body !== 'string' || response.body.trim() === '') {
    if (!ok) return { body: undefined };
    if (!call.output) return { body: undefined };
    throw new SculptorError(
      'upstream.invalid_response',
      `The backend answered ${response.contentType || 'without a content type'}, not a SOAP envelope.`,
    );
  }
  let root: XmlElement;
  try {
    root = parseXml(response.body, { code: 'upstream.invalid_response', source: 'The answer' });
  } catch (error) {
    if (!ok) return { body: undefined }; // an error page: the status says what happened
    throw new SculptorError(
      'upstream.invalid_response',
      'The backend answered XML that Sculptor refuses to read.',
      {
        cause: error,
        hint: (error as Error).message,
      },
    );
  }
  const envelopeNs = root.uri;
  if (root.local !== 'Envelope' || (envelopeNs !== NS.soap11Envelope && envelopeNs !== NS.soap12Envelope)) {
    if (!ok) return { body: undefined };
    throw new SculptorError(
      'upstream.invalid_response',
      'The backend answered XML that is not a SOAP envelope.',
      {
        hint: `its root element is ${root.local}${root.uri ? ` in ${root.uri}` : ''}`,
      },
    );
  }
  const soapBody = childElements(root).find((c) => c.uri === envelopeNs && c.local === 'Body');
  if (!soapBody)
    throw new SculptorError(
      'upstream.invalid_response',
      'The SOAP envelope the backend answered has no Body.',
    );
  const entries = childElements(soapBody);
  const fault = entries.find((c) => c.uri === envelopeNs && c.local === 'Fault');
  if (fault) return { body: undefined, fault: readFault(fault, envelopeNs) };
  if (!ok || !call.output) return { body: undefined };
  return { body: readMessage(call.output, entries) };
}

/** The output message from the Body's entries: by part (element name, or accessor name under rpc's wrapper). */
function readMessage(message: MessageShape, entries: XmlElement[]): unknown {
  const holders = message.wrapper ? childElements(entries[0] ?? emptyElement()) : entries;
  if (singlePart(message)) {
    const part = message.parts[0]!;
    const found = holders.find((e) => e.local === part.element.local) ?? holders[0];
    return found ? xmlToJson(found, part.schema) : undefined;
  }
  const result: Record<string, unknown> = {};
  holders.forEach((holder, i) => {
    // rpc accessors are named after their parts, though some services name the first one `return`.
    const part =
      message.parts.find((p) => p.element.local === holder.local) ??
      (message.wrapper ? message.parts[i] : undefined);
    result[part?.name ?? holder.local] = xmlToJson(holder, part?.schema);
  });
  return result;
}

function emptyElement(): XmlElement {
  return { uri: '', local: '', prefix: '', attributes: [], children: [], ns: {}, line: 0 };
}
