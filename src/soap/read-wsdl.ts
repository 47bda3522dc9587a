/**
 * The services of a WSDL 1.1 description as the SOAP calls they make: for each port (a service's
 * endpoint bound to a SOAP 1.1 or 1.2 binding), its operations with their SOAPAction, style
 * (document or rpc), use (literal or encoded) and the message parts each body carries. Messages,
 * port types and bindings are looked up across every imported description by qualified name.
 * A port whose binding is not SOAP (HTTP GET/POST, another protocol) is listed with the reason
 * it cannot be called, and so is an operation that needs what Sculptor does not send (MIME
 * attachments, a message that is not declared).
 */
import { attributeOf, childElements, resolveQName, textOf, type XmlElement } from '../xml/parse-xml.ts';
import type { QualifiedName } from '../xml/xml-schema.ts';
import type { Definitions } from './read-description.ts';
import { describe } from './read-xsd.ts';
import { NS, type SoapVersion } from './soap-namespaces.ts';

export interface MessagePart {
  name: string;
  /** `element=`: the part is this global element. */
  element?: QualifiedName;
  /** `type=`: the part is an accessor named after the part, of this type. */
  type?: QualifiedName;
}

export interface BodyBinding {
  use: 'literal' | 'encoded';
  /** `soap:body namespace`: the rpc wrapper's namespace. */
  namespace: string | undefined;
  parts: MessagePart[];
}

export interface BoundOperation {
  name: string;
  documentation: string | undefined;
  soapAction: string;
  style: 'document' | 'rpc';
  input: BodyBinding;
  /** Absent for a one-way operation. */
  output: BodyBinding | undefined;
  /** The description's target namespace, the default for an rpc wrapper. */
  targetNamespace: string;
}

export interface WsdlPort {
  service: string;
  port: string;
  binding: string;
  /** Absent when the binding is not SOAP (then `unsupported` says what it is). */
  version: SoapVersion | undefined;
  /** `soap:address location`, when the port has one. */
  address: string | undefined;
  operations: BoundOperation[];
  /** Operations (or the whole port, named '*') that cannot be called, and why. */
  unsupported: Array<{ name: string; reason: string }>;
}

interface Named {
  node: XmlElement;
  tns: string;
}

const key = (q: QualifiedName): string => `{${q.uri}}${q.local}`;

export function readPorts(definitions: readonly Definitions[]): WsdlPort[] {
  const messages = new Map<string, Named>();
  const portTypes = new Map<string, Named>();
  const bindings = new Map<string, Named>();
  const services: Named[] = [];
  for (const { root } of definitions) {
    const tns = attributeOf(root, 'targetNamespace') ?? '';
    for (const node of childElements(root)) {
      if (node.uri !== NS.wsdl) continue;
      const name = attributeOf(node, 'name');
      const table =
        node.local === 'message'
          ? messages
          : node.local === 'portType'
            ? portTypes
            : node.local === 'binding'
              ? bindings
              : undefined;
      if (table && name !== undefined && !table.has(key({ uri: tns, local: name }))) {
        table.set(key({ uri: tns, local: name }), { node, tns });
      }
      if (node.local === 'service') services.push({ node, tns });
    }
  }

  const ports: WsdlPort[] = [];
  const bound = new Set<string>();
  for (const service of services) {
    for (const port of childElements(service.node)) {
      if (port.uri !== NS.wsdl || port.local !== 'port') continue;
      const bindingName = attributeOf(port, 'binding');
      const address = childElements(port).find(
        (c) => c.local === 'address' && (c.uri === NS.wsdlSoap11 || c.uri === NS.wsdlSoap12),
      );
      const entry = {
        service: attributeOf(service.node, 'name') ?? '',
        port: attributeOf(port, 'name') ?? '',
        address: address ? attributeOf(address, 'location') : undefined,
      };
      const q = bindingName === undefined ? undefined : resolveQName(port, bindingName);
      const binding = q && bindings.get(key(q));
      if (!binding) {
        ports.push({
          ...entry,
          binding: bindingName ?? '',
          version: undefined,
          operations: [],
          unsupported: [
            { name: '*', reason: `its binding ${q ? describe(q) : '(none named)'} is not declared` },
          ],
        });
        continue;
      }
      bound.add(key(q!));
      ports.push({ ...entry, ...readBinding(binding, portTypes, messages) });
    }
  }
  // A description of bindings without a service (an interface for others to host): each binding is a port.
  for (const [name, binding] of bindings) {
    if (bound.has(name)) continue;
    const local = attributeOf(binding.node, 'name') ?? '';
    ports.push({
      service: '',
      port: local,
      address: undefined,
      ...readBinding(binding, portTypes, messages),
    });
  }
  return ports;
}

function readBinding(
  binding: Named,
  portTypes: Map<string, Named>,
  messages: Map<string, Named>,
): Pick<WsdlPort, 'binding' | 'version' | 'operations' | 'unsupported'> {
  const name = attributeOf(binding.node, 'name') ?? '';
  const soap = childElements(binding.node).find(
    (c) => c.local === 'binding' && (c.uri === NS.wsdlSoap11 || c.uri === NS.wsdlSoap12),
  );
  if (!soap) {
    const kind = childElements(binding.node).find((c) => c.uri !== NS.wsdl && c.local === 'binding');
    const what =
      kind?.uri === NS.wsdlHttp
        ? `an HTTP ${attributeOf(kind, 'verb') ?? ''} binding`.replace(' binding', ' binding')
        : kind
          ? `a binding in ${kind.uri}`
          : 'no SOAP binding';
    return {
      binding: name,
      version: undefined,
      operations: [],
      unsupported: [
        { name: '*', reason: `it is ${what}, not SOAP 1.1 or 1.2; Sculptor calls SOAP bindings only` },
      ],
    };
  }
  const version: SoapVersion = soap.uri === NS.wsdlSoap12 ? '1.2' : '1.1';
  const bindingStyle = attributeOf(soap, 'style') === 'rpc' ? 'rpc' : 'document';
  const typeName = attributeOf(binding.node, 'type');
  const portType =
    typeName === undefined ? undefined : portTypes.get(key(resolveQName(binding.node, typeName)));
  const operations: BoundOperation[] = [];
  const unsupported: WsdlPort['unsupported'] = [];
  for (const op of childElements(binding.node)) {
    if (op.uri !== NS.wsdl || op.local !== 'operation') continue;
    const opName = attributeOf(op, 'name') ?? '';
    try {
      operations.push(readOperation(op, opName, version, bindingStyle, binding.tns, portType, messages));
    } catch (error) {
      if (!(error instanceof UnsupportedOperation)) throw error;
      unsupported.push({ name: opName, reason: error.message });
    }
  }
  return { binding: name, version, operations, unsupported };
}

class UnsupportedOperation extends Error {}

function readOperation(
  op: XmlElement,
  name: string,
  version: SoapVersion,
  bindingStyle: 'document' | 'rpc',
  targetNamespace: string,
  portType: Named | undefined,
  messages: Map<string, Named>,
): BoundOperation {
  const soapNs = version === '1.2' ? NS.wsdlSoap12 : NS.wsdlSoap11;
  const soapOperation = childElements(op).find((c) => c.uri === soapNs && c.local === 'operation');
  const style =
    soapOperation && attributeOf(soapOperation, 'style') !== undefined
      ? attributeOf(soapOperation, 'style') === 'rpc'
        ? 'rpc'
        : 'document'
      : bindingStyle;
  if (!portType) throw new UnsupportedOperation("its binding's portType is not declared");
  const abstract = childElements(portType.node).find(
    (c) => c.uri === NS.wsdl && c.local === 'operation' && attributeOf(c, 'name') === name,
  );
  if (!abstract) throw new UnsupportedOperation(`the portType has no operation ${name}`);
  const doc = childElements(abstract).find((c) => c.uri === NS.wsdl && c.local === 'documentation');
  const abstractInput = childElements(abstract).find((c) => c.uri === NS.wsdl && c.local === 'input');
  const abstractOutput = childElements(abstract).find((c) => c.uri === NS.wsdl && c.local === 'output');
  if (!abstractInput)
    throw new UnsupportedOperation('it has no input message (a notification or solicit-response operation)');
  const bodyOf = (direction: 'input' | 'output', abstractMessage: XmlElement): BodyBinding => {
    const concrete = childElements(op).find((c) => c.uri === NS.wsdl && c.local === direction);
    const children = concrete ? childElements(concrete) : [];
    if (children.some((c) => c.uri === NS.wsdlMime)) {
      throw new UnsupportedOperation(
        `its ${direction} is a MIME multipart message (attachments); Sculptor sends and reads plain SOAP bodies`,
      );
    }
    const body = children.find((c) => c.uri === soapNs && c.local === 'body');
    const messageName = attributeOf(abstractMessage, 'message');
    if (messageName === undefined) throw new UnsupportedOperation(`its ${direction} names no message`);
    const messageQ = resolveQName(abstractMessage, messageName);
    const message = messages.get(key(messageQ));
    if (!message)
      throw new UnsupportedOperation(`its ${direction} message ${describe(messageQ)} is not declared`);
    let parts = childElements(message.node)
      .filter((c) => c.uri === NS.wsdl && c.local === 'part')
      .map((part): MessagePart => {
        const element = attributeOf(part, 'element');
        const type = attributeOf(part, 'type');
        return {
          name: attributeOf(part, 'name') ?? '',
          ...(element !== undefined ? { element: resolveQName(part, element) } : {}),
          ...(type !== undefined ? { type: resolveQName(part, type) } : {}),
        };
      });
    const named = body ? attributeOf(body, 'parts') : undefined;
    if (named !== undefined) {
      const wanted = named.split(/\s+/).filter(Boolean);
      parts = parts.filter((p) => wanted.includes(p.name));
    }
    // Parts the binding sends as SOAP headers are not in the body.
    const headerParts = new Set(
      children
        .filter(
          (c) =>
            c.uri === soapNs &&
            c.local === 'header' &&
            attributeOf(c, 'message') !== undefined &&
            resolveQName(c, attributeOf(c, 'message')!).local === messageQ.local,
        )
        .map((c) => attributeOf(c, 'part')),
    );
    if (named === undefined) parts = parts.filter((p) => !headerParts.has(p.name));
    return {
      use: body && attributeOf(body, 'use') === 'encoded' ? 'encoded' : 'literal',
      namespace: body ? attributeOf(body, 'namespace') : undefined,
      parts,
    };
  };
  return {
    name,
    documentation: doc ? textOf(doc).replace(/\s+/g, ' ').trim() || undefined : undefined,
    soapAction: (soapOperation && attributeOf(soapOperation, 'soapAction')) ?? '',
    style,
    input: bodyOf('input', abstractInput),
    output: abstractOutput ? bodyOf('output', abstractOutput) : undefined,
    targetNamespace,
  };
}
