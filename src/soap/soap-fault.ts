/**
 * A SOAP fault, read for the engine: whose fault it is and the backend's words for it.
 * SOAP 1.1 (`faultcode` `Client…` / `Server…`) and 1.2 (`Code/Value` `Sender` / `Receiver`, with
 * subcodes) are read alike; `VersionMismatch` and `MustUnderstand` are the gateway's request
 * failing, not the caller's values, so they count as the backend's.
 */
import type { AnswerFault } from '../openapi/operation-codec.ts';
import { childElements, textOf, type XmlElement } from '../xml/parse-xml.ts';
import { NS } from './soap-namespaces.ts';

/** The fault string is for a designer's debug view: kept short, on one line, without control characters. */
const MAX_REASON = 500;

export function readFault(fault: XmlElement, envelopeNs: string): AnswerFault {
  const child = (parent: XmlElement | undefined, local: string, uri?: string) =>
    parent && childElements(parent).find((c) => c.local === local && (uri === undefined || c.uri === uri));
  let code: string;
  let reason: string;
  if (envelopeNs === NS.soap12Envelope) {
    const value = child(child(fault, 'Code', envelopeNs), 'Value', envelopeNs);
    code = value ? textOf(value).trim() : '';
    const texts = child(fault, 'Reason', envelopeNs);
    reason = texts ? childElements(texts).map(textOf).join(' ') : '';
  } else {
    // SOAP 1.1's faultcode and faultstring are unqualified (some servers qualify them anyway).
    const faultcode = child(fault, 'faultcode');
    const faultstring = child(fault, 'faultstring');
    code = faultcode ? textOf(faultcode).trim() : '';
    reason = faultstring ? textOf(faultstring) : '';
  }
  const local = code.slice(code.indexOf(':') + 1);
  const party = /^(Client|Sender)\b/i.test(local) ? 'caller' : 'backend';
  return { party, code: clean(code, 100), reason: clean(reason, MAX_REASON) };
}

function clean(text: string, max: number): string {
  const line = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
