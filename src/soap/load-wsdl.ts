/**
 * Loads a WSDL 1.1 description into the model an OpenAPI document loads into (OpenApiDocument),
 * so a SOAP operation is a step like any other: `call: backend#Operation`, its input message the
 * step's `body` (a JSON Schema of it for `check` and `init`), its output message the step's
 * result, and a codec (soap-codec.ts) that builds the envelope and reads the answer.
 *
 * Why a reader of our own rather than node-soap's or strong-soap's: both bring their own HTTP
 * client and make the calls themselves, and every call Sculptor makes goes through its own
 * client (egress policy, deadline, size caps, retries, telemetry). What a gateway needs of a
 * WSDL is small — the ports, their operations and the schemas of their messages — and is read
 * here over the same safe XML parser as answers (read-description.ts, read-wsdl.ts, read-xsd.ts).
 *
 * One port is used: the one `backends.yaml` names (`port`, or `service` to pick among several),
 * else the first SOAP port. Operations that cannot be called are listed with the reason
 * (`unsupported`), so `check` and `sculptor wsdl` say why rather than "no such operation".
 */
import { SculptorError } from '../errors/sculptor-error.ts';
import type { OpenApiDocument, Operation } from '../openapi/load-openapi.ts';
import { attributeOf, childElements, textOf } from '../xml/parse-xml.ts';
import type { XmlSchema } from '../xml/xml-schema.ts';
import { type DescriptionLimits, type FetchText, readDescription } from './read-description.ts';
import { type BodyBinding, type BoundOperation, readPorts, type WsdlPort } from './read-wsdl.ts';
import { XsdProblem, XsdSet } from './read-xsd.ts';
import { type MessageShape, type PartShape, soapCodec } from './soap-codec.ts';
import { NS, SOAP_VERSIONS } from './soap-namespaces.ts';

export interface WsdlOptions {
  /** The service to use, when the description has several. */
  service?: string;
  /** The port to use (its name), when the service has several. */
  port?: string;
  fetchText?: FetchText;
  limits?: Partial<DescriptionLimits>;
}

export interface WsdlDocument extends OpenApiDocument {
  /** Every port of the description, for listings; `port` is the one the operations come from. */
  ports: WsdlPort[];
  port: WsdlPort | undefined;
}

export async function loadWsdl(location: string, options: WsdlOptions = {}): Promise<WsdlDocument> {
  const description = await readDescription(location, options);
  const xsd = new XsdSet(description.schemas);
  const ports = readPorts(description.definitions);
  const port = choosePort(location, ports, options);
  const operations: Operation[] = [];
  const unsupported: NonNullable<OpenApiDocument['unsupported']> = [];
  for (const op of port?.operations ?? []) {
    try {
      operations.push(toOperation(op, port!, xsd));
    } catch (error) {
      if (!(error instanceof XsdProblem)) throw error;
      unsupported.push({ operation: op.name, reason: error.message });
    }
  }
  for (const refused of port?.unsupported ?? []) {
    if (refused.name !== '*') unsupported.push({ operation: refused.name, reason: refused.reason });
  }
  const root = description.definitions[0]!.root;
  const doc = childElements(root).find((c) => c.uri === NS.wsdl && c.local === 'documentation');
  return {
    file: location,
    specVersion: 'wsdl-1.1',
    title: attributeOf(root, 'name') ?? port?.service ?? (doc ? textOf(doc).trim().slice(0, 200) : ''),
    servers: port?.address ? [port.address] : [],
    operations,
    unsupported,
    oauthFlow: undefined,
    ports,
    port,
  };
}

function choosePort(location: string, ports: WsdlPort[], options: WsdlOptions): WsdlPort | undefined {
  const names = (list: WsdlPort[]) =>
    list.map((p) => (p.service ? `${p.service}/${p.port}` : p.port)).join(', ') || 'none';
  const inService =
    options.service === undefined ? ports : ports.filter((p) => p.service === options.service);
  if (options.service !== undefined && inService.length === 0) {
    throw new SculptorError(
      'load.wsdl',
      `WSDL ${location} has no service '${options.service}' (ports: ${names(ports)}).`,
    );
  }
  if (options.port !== undefined) {
    const found = inService.find((p) => p.port === options.port);
    if (!found)
      throw new SculptorError(
        'load.wsdl',
        `WSDL ${location} has no port '${options.port}' (ports: ${names(inService)}).`,
      );
    if (!found.version) {
      throw new SculptorError(
        'load.wsdl',
        `Port '${options.port}' of WSDL ${location} cannot be called: ${found.unsupported[0]?.reason ?? 'not SOAP'}.`,
      );
    }
    return found;
  }
  const soap = inService.find((p) => p.version !== undefined);
  if (!soap) {
    const reasons = inService
      .map((p) => `${p.port}: ${p.unsupported[0]?.reason ?? 'no operations'}`)
      .join('; ');
    throw new SculptorError(
      'load.wsdl',
      `WSDL ${location} has no SOAP 1.1 or 1.2 port Sculptor can call${reasons ? ` (${reasons})` : ''}.`,
    );
  }
  return soap;
}

function toOperation(op: BoundOperation, port: WsdlPort, xsd: XsdSet): Operation {
  const input = messageShape(op, op.input, 'input', xsd);
  const output = op.output ? messageShape(op, op.output, 'output', xsd) : undefined;
  const version = port.version!;
  const mediaType = SOAP_VERSIONS[version].contentType;
  return {
    operationId: op.name,
    method: 'POST',
    path: `#${op.name}`,
    ...(op.documentation ? { summary: op.documentation } : {}),
    parameters: [],
    requestBody: {
      required: input.parts.length > 0,
      mediaType,
      schema: messageSchema(input),
      strictFields: true,
    },
    responses: output
      ? { '200': { mediaTypes: [mediaType], schema: messageSchema(output) } }
      : { '200': { mediaTypes: [] } },
    security: [],
    deprecated: false,
    codec: soapCodec({ name: op.name, version, soapAction: op.soapAction, input, output }),
  };
}

/** How a message sits in the body: rpc's wrapper and accessors, or document style's part elements. */
function messageShape(
  op: BoundOperation,
  binding: BodyBinding,
  direction: 'input' | 'output',
  xsd: XsdSet,
): MessageShape {
  const rpc = op.style === 'rpc';
  const parts: PartShape[] = binding.parts.map((part) => {
    if (part.element) {
      const schema = xsd.element(part.element);
      // rpc names its accessors after the parts, even for an element part.
      return { name: part.name, element: rpc ? { uri: '', local: part.name } : part.element, schema };
    }
    if (!part.type)
      throw new XsdProblem(`part ${part.name} of its ${direction} names neither an element nor a type`);
    return { name: part.name, element: { uri: '', local: part.name }, schema: xsd.type(part.type) };
  });
  const namespace = binding.namespace ?? op.targetNamespace;
  return {
    wrapper: rpc
      ? { uri: namespace, local: direction === 'input' ? op.name : `${op.name}Response` }
      : undefined,
    parts,
    encoded: binding.use === 'encoded',
  };
}

/** The JSON Schema of a message as a step writes or reads it. */
function messageSchema(message: MessageShape): XmlSchema {
  if (message.wrapper === undefined && message.parts.length === 1) return message.parts[0]!.schema ?? {};
  // Each part under its name, as the element it is written as (rpc: an unqualified accessor).
  const part = (p: PartShape): XmlSchema => ({
    allOf: [p.schema ?? {}],
    xml: { name: p.element.local, namespace: p.element.uri },
  });
  return {
    type: 'object',
    properties: Object.fromEntries(message.parts.map((p) => [p.name, part(p)])),
    required: message.parts.map((p) => p.name),
    additionalProperties: false,
  };
}
