/** The namespaces a WSDL 1.1 description and a SOAP message are read and written in. */
export const NS = {
  wsdl: 'http://schemas.xmlsoap.org/wsdl/',
  /** WSDL 1.1's SOAP 1.1 binding. */
  wsdlSoap11: 'http://schemas.xmlsoap.org/wsdl/soap/',
  /** WSDL 1.1's SOAP 1.2 binding. */
  wsdlSoap12: 'http://schemas.xmlsoap.org/wsdl/soap12/',
  wsdlHttp: 'http://schemas.xmlsoap.org/wsdl/http/',
  wsdlMime: 'http://schemas.xmlsoap.org/wsdl/mime/',
  soap11Envelope: 'http://schemas.xmlsoap.org/soap/envelope/',
  soap12Envelope: 'http://www.w3.org/2003/05/soap-envelope',
  soapEncoding: 'http://schemas.xmlsoap.org/soap/encoding/',
  xsd: 'http://www.w3.org/2001/XMLSchema',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  wsse: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
  wsu: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd',
} as const;

export type SoapVersion = '1.1' | '1.2';

/** What differs between the two SOAP versions on the wire. */
export const SOAP_VERSIONS = {
  '1.1': { envelope: NS.soap11Envelope, contentType: 'text/xml' },
  '1.2': { envelope: NS.soap12Envelope, contentType: 'application/soap+xml' },
} as const satisfies Record<SoapVersion, { envelope: string; contentType: string }>;
