import { describe, expect, it } from 'vitest';
import { readFault } from '../../src/soap/soap-fault.ts';
import { NS } from '../../src/soap/soap-namespaces.ts';
import { childElements, parseXml } from '../../src/xml/parse-xml.ts';

function fault(body: string, ns: string = NS.soap11Envelope) {
  const root = parseXml(`<e:Envelope xmlns:e="${ns}"><e:Body>${body}</e:Body></e:Envelope>`, {
    code: 'upstream.invalid_response',
    source: 'test',
  });
  return readFault(childElements(childElements(root)[0]!)[0]!, ns);
}

describe('SOAP faults', () => {
  it.each([
    ['e:Client', 'caller'],
    ['e:Client.Authentication', 'caller'],
    ['Client', 'caller'],
    ['e:Server', 'backend'],
    ['e:VersionMismatch', 'backend'],
    ['e:MustUnderstand', 'backend'],
    ['SERVER', 'backend'],
  ])('SOAP 1.1 %s is the %s’s', (code, party) => {
    expect(fault(`<e:Fault><faultcode>${code}</faultcode><faultstring>why</faultstring></e:Fault>`)).toEqual({
      party,
      code,
      reason: 'why',
    });
  });

  it.each([
    ['e:Sender', 'caller'],
    ['e:Receiver', 'backend'],
  ])('SOAP 1.2 %s is the %s’s, its reason texts joined', (code, party) => {
    const f = fault(
      `<e:Fault><e:Code><e:Value>${code}</e:Value><e:Subcode><e:Value>x:Detail</e:Value></e:Subcode></e:Code><e:Reason><e:Text xml:lang="en">bad</e:Text><e:Text xml:lang="fr">mauvais</e:Text></e:Reason></e:Fault>`,
      NS.soap12Envelope,
    );
    expect(f).toEqual({ party, code, reason: 'bad mauvais' });
  });

  it('keeps the fault string on one line, without control characters, and short', () => {
    const f = fault(
      `<e:Fault><faultcode>e:Server</faultcode><faultstring>a\u0085b\n\tc${'x'.repeat(1000)}</faultstring></e:Fault>`,
    );
    expect(f.reason.startsWith('a b c')).toBe(true);
    expect(f.reason.length).toBe(500);
  });
});
