/**
 * What the engine runs for any operation, whatever describes it: how one call's request is
 * built from its parameters and body, and how its answer is read into the JSON value a
 * projection sees. An OpenAPI operation uses OpenAPI's rules (`openApiCodec`); a WSDL operation
 * brings its SOAP binding's (src/soap/soap-codec.ts). The engine has one path: the step's codec.
 */
import { SculptorError } from '../errors/sculptor-error.ts';
import { parseXml } from '../xml/parse-xml.ts';
import { isXmlMediaType } from '../xml/xml-media-type.ts';
import type { XmlSchema } from '../xml/xml-schema.ts';
import { xmlToJson } from '../xml/xml-to-json.ts';
import { type BuiltRequest, buildRequest } from './build-request.ts';
import type { Operation } from './normalize-operations.ts';

/** The parts of a backend's answer a codec reads (the HTTP client's response). */
export interface AnswerIn {
  status: number;
  /** Media type without parameters, lower-case; '' when absent. */
  contentType: string;
  /** Parsed JSON, the text of a text or XML answer, or undefined. */
  body: unknown;
}

/** A failure the answer itself describes (a SOAP fault): whose it is, and the backend's words. */
export interface AnswerFault {
  /** `caller`: the request was refused as wrong (SOAP Client/Sender); `backend`: it failed (Server/Receiver…). */
  party: 'caller' | 'backend';
  /** The backend's fault code, e.g. `soap:Client`, `env:Receiver`. */
  code: string;
  /** The backend's fault string: for the designer's debug view only, never the caller. */
  reason: string;
}

export interface DecodedAnswer {
  body: unknown;
  fault?: AnswerFault;
}

export interface OperationCodec {
  /** The request for one call: throws `compile.*` for the sculpt's mistakes, `input.invalid` for bad values. */
  request(op: Operation, baseUrl: string, params: Record<string, unknown>, body: unknown): BuiltRequest;
  /** The answer's body as JSON values (or the fault it reports); throws `upstream.invalid_response`. */
  answer(op: Operation, response: AnswerIn): DecodedAnswer;
}

export const openApiCodec: OperationCodec = {
  request: buildRequest,
  answer(op, response) {
    const ok = response.status >= 200 && response.status < 300;
    if (typeof response.body !== 'string') return { body: response.body };
    if (!ok) return { body: undefined }; // error bodies are not read, whatever their type
    if (!isXmlMediaType(response.contentType)) {
      throw new SculptorError(
        'upstream.invalid_response',
        `The backend answered ${response.contentType || 'without a content type'}, not JSON or XML.`,
      );
    }
    return { body: readXmlAnswer(response.body, responseSchema(op, response.status)) };
  },
};

/** An XML answer as JSON, by the schema the operation declares for it. */
export function readXmlAnswer(text: string, schema: XmlSchema | undefined): unknown {
  if (text.trim() === '') return undefined;
  let root;
  try {
    root = parseXml(text, { code: 'upstream.invalid_response', source: 'The answer' });
  } catch (error) {
    // What was wrong is the designer's to see; the caller learns only that the answer was refused.
    throw new SculptorError(
      'upstream.invalid_response',
      'The backend answered XML that Sculptor refuses to read.',
      {
        cause: error,
        hint: (error as Error).message,
      },
    );
  }
  return xmlToJson(root, schema);
}

/** The schema of the declared response for a status: exact, then its class (`2XX`), then `default`. */
function responseSchema(op: Operation, status: number): XmlSchema | undefined {
  const response =
    op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  return response?.schema as XmlSchema | undefined;
}
