/**
 * The XML Schemas of a WSDL description, compiled into the schema form src/xml/ reads and
 * writes by (JSON Schema with OpenAPI's `xml` object), so a SOAP message is mapped exactly as an
 * OpenAPI XML body is. What is kept is what the mapping needs: element names and namespaces
 * (`elementFormDefault`, `form`, `ref`), order (sequences), occurrence (`minOccurs` → required,
 * `maxOccurs` → arrays), attributes, simple content, nillable, extension of a base type, groups,
 * enumerations and the built-in types. Identity constraints, facets other than enumerations,
 * substitution groups and `redefine` are not (a value is not validated past its type and enum).
 *
 * Named types are compiled once and shared: an element that uses one refers to it through
 * `allOf`, so a recursive type is a cycle of objects, never an endless expansion.
 */
import { attributeOf, childElements, resolveQName, type XmlElement } from '../xml/parse-xml.ts';
import { type QualifiedName, XSD, type XmlSchema } from '../xml/xml-schema.ts';
import { NS } from './soap-namespaces.ts';

/** One `<xsd:schema>`, with the target namespace it declares (or takes from the schema including it). */
export interface SchemaDocument {
  root: XmlElement;
  targetNamespace: string;
  file: string;
}

interface Context {
  tns: string;
  elementsQualified: boolean;
  attributesQualified: boolean;
}

interface Declaration {
  node: XmlElement;
  ctx: Context;
}

/** A reference the schemas cannot satisfy, or a construct not read: the operation reaching it is refused with this. */
export class XsdProblem extends Error {}

const clark = (q: QualifiedName): string => `{${q.uri}}${q.local}`;

/** XSD's built-in simple types as JSON Schema. Unlisted ones (dates, URIs, names…) are strings. */
const INTEGERS: Record<string, [number, number] | undefined> = {
  integer: undefined,
  nonPositiveInteger: undefined,
  negativeInteger: undefined,
  nonNegativeInteger: undefined,
  positiveInteger: undefined,
  long: undefined,
  unsignedLong: undefined,
  int: [-2147483648, 2147483647],
  unsignedInt: [0, 4294967295],
  short: [-32768, 32767],
  unsignedShort: [0, 65535],
  byte: [-128, 127],
  unsignedByte: [0, 255],
};
const NUMBERS = new Set(['decimal', 'float', 'double']);
const FORMATS: Record<string, string> = { date: 'date', dateTime: 'date-time', time: 'time', anyURI: 'uri' };

function builtin(local: string): XmlSchema | undefined {
  const type: QualifiedName = { uri: XSD, local };
  if (local === 'anyType' || local === 'anySimpleType') return { 'x-xsd-type': type };
  if (local === 'boolean') return { type: 'boolean', 'x-xsd-type': type };
  if (NUMBERS.has(local)) return { type: 'number', 'x-xsd-type': type };
  if (Object.hasOwn(INTEGERS, local)) {
    const range = INTEGERS[local];
    return {
      type: 'integer',
      ...(range ? { minimum: range[0], maximum: range[1] } : {}),
      'x-xsd-type': type,
    };
  }
  return { type: 'string', ...(FORMATS[local] ? { format: FORMATS[local] } : {}), 'x-xsd-type': type };
}

/** SOAP encoding's own types are XSD's under another namespace; its Array is an array of anything. */
function soapEncoded(local: string): XmlSchema | undefined {
  if (local === 'Array') return { type: 'array', items: {}, xml: { wrapped: true } };
  if (local === 'Struct') return { type: 'object' };
  return builtin(local);
}

export class XsdSet {
  private readonly elements = new Map<string, Declaration>();
  private readonly types = new Map<string, Declaration>();
  private readonly groups = new Map<string, Declaration>();
  private readonly attributeGroups = new Map<string, Declaration>();
  private readonly attributes = new Map<string, Declaration>();
  private readonly compiledTypes = new Map<string, XmlSchema>();
  private readonly compiledElements = new Map<string, XmlSchema>();
  readonly namespaces = new Set<string>();

  constructor(schemas: readonly SchemaDocument[]) {
    for (const { root, targetNamespace } of schemas) {
      const ctx: Context = {
        tns: targetNamespace,
        elementsQualified: attributeOf(root, 'elementFormDefault') === 'qualified',
        attributesQualified: attributeOf(root, 'attributeFormDefault') === 'qualified',
      };
      this.namespaces.add(targetNamespace);
      for (const node of childElements(root)) {
        if (node.uri !== XSD) continue;
        const name = attributeOf(node, 'name');
        if (name === undefined) continue;
        const key = clark({ uri: targetNamespace, local: name });
        const table =
          node.local === 'element'
            ? this.elements
            : node.local === 'complexType' || node.local === 'simpleType'
              ? this.types
              : node.local === 'group'
                ? this.groups
                : node.local === 'attributeGroup'
                  ? this.attributeGroups
                  : node.local === 'attribute'
                    ? this.attributes
                    : undefined;
        // The first declaration wins, as node-soap and zeep read a name declared twice.
        if (table && !table.has(key)) table.set(key, { node, ctx });
      }
    }
  }

  /**
   * A QName reference read as XSD reads it, with one leniency node-soap and zeep share: an
   * unprefixed name that resolves to no namespace, where nothing is declared without one, means
   * the schema's own target namespace (schemas written without a default namespace do this).
   */
  private ref(node: XmlElement, qname: string, ctx: Context, table: Map<string, Declaration>): QualifiedName {
    const q = resolveQName(node, qname);
    if (q.uri !== '' || ctx.tns === '' || qname.includes(':') || table.has(clark(q))) return q;
    return { uri: ctx.tns, local: q.local };
  }

  hasElement(q: QualifiedName): boolean {
    return this.elements.has(clark(q));
  }

  /** A global element: its content, named and namespaced as the element. */
  element(q: QualifiedName): XmlSchema {
    const key = clark(q);
    let schema = this.compiledElements.get(key);
    if (!schema) {
      const declaration = this.elements.get(key);
      if (!declaration)
        throw new XsdProblem(`element ${describe(q)} is not declared in the description's schemas`);
      schema = { allOf: [], xml: { name: q.local, namespace: q.uri } };
      this.compiledElements.set(key, schema);
      schema.allOf!.push(this.contentOf(declaration.node, declaration.ctx));
      if (attributeOf(declaration.node, 'nillable') === 'true') schema['x-nillable'] = true;
    }
    return schema;
  }

  /** A named type (built-in, SOAP-encoded or declared), compiled once. */
  type(q: QualifiedName): XmlSchema {
    if (q.uri === XSD) {
      const known = builtin(q.local);
      if (known) return known;
    }
    if (q.uri === NS.soapEncoding) {
      const known = soapEncoded(q.local);
      if (known) return known;
    }
    const key = clark(q);
    const compiled = this.compiledTypes.get(key);
    if (compiled) return compiled;
    const declaration = this.types.get(key);
    if (!declaration)
      throw new XsdProblem(`type ${describe(q)} is not declared in the description's schemas`);
    const schema: XmlSchema = { 'x-xsd-type': q };
    this.compiledTypes.set(key, schema);
    if (declaration.node.local === 'complexType') this.complex(schema, declaration.node, declaration.ctx);
    else Object.assign(schema, this.simple(declaration.node, declaration.ctx), { 'x-xsd-type': q });
    return schema;
  }

  /** What an element declaration holds: its `type`, its inline type, or anything. */
  private contentOf(node: XmlElement, ctx: Context): XmlSchema {
    const type = attributeOf(node, 'type');
    if (type !== undefined) return this.type(this.ref(node, type, ctx, this.types));
    for (const child of childElements(node)) {
      if (child.uri !== XSD) continue;
      if (child.local === 'complexType') {
        const schema: XmlSchema = {};
        this.complex(schema, child, ctx);
        return schema;
      }
      if (child.local === 'simpleType') return this.simple(child, ctx);
    }
    return {};
  }

  private complex(target: XmlSchema, node: XmlElement, ctx: Context): void {
    target.type = 'object';
    target.properties = {};
    target.required = [];
    target.additionalProperties = false;
    if (attributeOf(node, 'mixed') === 'true') {
      target.properties._text = { type: 'string', xml: { nodeType: 'text' } };
    }
    this.content(target, node, ctx);
  }

  /** The children of a complexType, or of an extension or restriction inside one. */
  private content(target: XmlSchema, node: XmlElement, ctx: Context): void {
    for (const child of childElements(node)) {
      if (child.uri !== XSD) continue;
      switch (child.local) {
        case 'sequence':
        case 'all':
        case 'choice':
        case 'group':
          this.particle(target, child, ctx, false, false);
          break;
        case 'attribute':
        case 'attributeGroup':
        case 'anyAttribute':
          this.attribute(target, child, ctx);
          break;
        case 'simpleContent':
          this.simpleContent(target, child, ctx);
          break;
        case 'complexContent':
          this.complexContent(target, child, ctx);
          break;
        default:
          break; // annotation
      }
    }
  }

  private particle(
    target: XmlSchema,
    node: XmlElement,
    ctx: Context,
    optional: boolean,
    repeated: boolean,
  ): void {
    const min = attributeOf(node, 'minOccurs');
    const max = attributeOf(node, 'maxOccurs');
    const isOptional = optional || min === '0';
    const isRepeated = repeated || max === 'unbounded' || (max !== undefined && Number(max) > 1);
    switch (node.local) {
      case 'element':
        this.elementUse(target, node, ctx, isOptional, isRepeated);
        return;
      case 'any':
        target.additionalProperties = true;
        return;
      case 'group': {
        const ref = attributeOf(node, 'ref');
        if (ref === undefined) {
          for (const child of childElements(node)) this.particle(target, child, ctx, isOptional, isRepeated);
          return;
        }
        const q = this.ref(node, ref, ctx, this.groups);
        const group = this.groups.get(clark(q));
        if (!group) throw new XsdProblem(`group ${describe(q)} is not declared in the description's schemas`);
        for (const child of childElements(group.node)) {
          if (child.uri === XSD) this.particle(target, child, group.ctx, isOptional, isRepeated);
        }
        return;
      }
      case 'sequence':
      case 'all':
      case 'choice':
        for (const child of childElements(node)) {
          if (child.uri === XSD)
            this.particle(target, child, ctx, isOptional || node.local === 'choice', isRepeated);
        }
        return;
      default:
        return; // annotation
    }
  }

  private elementUse(
    target: XmlSchema,
    node: XmlElement,
    ctx: Context,
    optional: boolean,
    repeated: boolean,
  ): void {
    const ref = attributeOf(node, 'ref');
    let name: string;
    let use: XmlSchema;
    if (ref !== undefined) {
      const q = this.ref(node, ref, ctx, this.elements);
      name = q.local;
      use = this.element(q);
    } else {
      name = attributeOf(node, 'name') ?? '';
      const form = attributeOf(node, 'form');
      const qualified = form === undefined ? ctx.elementsQualified : form === 'qualified';
      use = {
        allOf: [this.contentOf(node, ctx)],
        xml: { name, ...(qualified && ctx.tns !== '' ? { namespace: ctx.tns } : {}) },
      };
      if (attributeOf(node, 'nillable') === 'true') use['x-nillable'] = true;
    }
    if (name === '') return;
    target.properties![name] = repeated ? { type: 'array', items: use } : use;
    if (!optional && !target.required!.includes(name)) target.required!.push(name);
  }

  private attribute(target: XmlSchema, node: XmlElement, ctx: Context): void {
    if (node.local === 'anyAttribute') return;
    const ref = attributeOf(node, 'ref');
    if (node.local === 'attributeGroup') {
      if (ref === undefined) return;
      const q = this.ref(node, ref, ctx, this.attributeGroups);
      const group = this.attributeGroups.get(clark(q));
      if (!group)
        throw new XsdProblem(`attributeGroup ${describe(q)} is not declared in the description's schemas`);
      for (const child of childElements(group.node)) {
        if (child.uri === XSD) this.attribute(target, child, group.ctx);
      }
      return;
    }
    if (attributeOf(node, 'use') === 'prohibited') return;
    let name: string;
    let namespace = '';
    let declared: Declaration = { node, ctx };
    if (ref !== undefined) {
      const q = this.ref(node, ref, ctx, this.attributes);
      name = q.local;
      namespace = q.uri;
      const global = this.attributes.get(clark(q));
      // xml:lang and SOAP encoding's arrayType are declared by schemas a description rarely carries.
      declared = global ?? { node: { ...node, attributes: [] }, ctx };
    } else {
      name = attributeOf(node, 'name') ?? '';
      const form = attributeOf(node, 'form');
      if (form === undefined ? ctx.attributesQualified : form === 'qualified') namespace = ctx.tns;
    }
    if (name === '') return;
    const content = this.simpleContentOf(declared.node, declared.ctx);
    target.properties![name] = {
      allOf: [content],
      xml: { name, attribute: true, ...(namespace !== '' ? { namespace } : {}) },
    };
    if (attributeOf(node, 'use') === 'required') target.required!.push(name);
  }

  /** The simple type of an attribute declaration: its `type`, its inline simpleType, or a string. */
  private simpleContentOf(node: XmlElement, ctx: Context): XmlSchema {
    const type = attributeOf(node, 'type');
    if (type !== undefined) return this.type(this.ref(node, type, ctx, this.types));
    const inline = childElements(node).find((c) => c.uri === XSD && c.local === 'simpleType');
    return inline ? this.simple(inline, ctx) : { type: 'string' };
  }

  /** Text content beside attributes: the text is the `_text` property, typed by the base. */
  private simpleContent(target: XmlSchema, node: XmlElement, ctx: Context): void {
    const derivation = childElements(node).find(
      (c) => c.uri === XSD && (c.local === 'extension' || c.local === 'restriction'),
    );
    if (!derivation) return;
    const base = attributeOf(derivation, 'base');
    if (base !== undefined) {
      const baseSchema = this.type(this.ref(derivation, base, ctx, this.types));
      if (baseSchema.properties || baseSchema.type === 'object') target.allOf = [baseSchema];
      else target.properties!._text = { allOf: [baseSchema], xml: { nodeType: 'text' } };
    }
    this.content(target, derivation, ctx);
  }

  private complexContent(target: XmlSchema, node: XmlElement, ctx: Context): void {
    const derivation = childElements(node).find(
      (c) => c.uri === XSD && (c.local === 'extension' || c.local === 'restriction'),
    );
    if (!derivation) return;
    const base = attributeOf(derivation, 'base');
    const baseName = base === undefined ? undefined : this.ref(derivation, base, ctx, this.types);
    if (baseName && baseName.uri === NS.soapEncoding && baseName.local === 'Array') {
      this.encodedArray(target, derivation, ctx);
      return;
    }
    // An extension adds to its base, which comes first; a restriction restates what it keeps.
    if (
      baseName &&
      derivation.local === 'extension' &&
      !(baseName.uri === XSD && baseName.local === 'anyType')
    ) {
      target.allOf = [this.type(baseName)];
    }
    this.content(target, derivation, ctx);
  }

  /** SOAP encoding's arrays: `wsdl:arrayType="tns:Item[]"` on the arrayType attribute, or a repeated element. */
  private encodedArray(target: XmlSchema, derivation: XmlElement, ctx: Context): void {
    let items: XmlSchema = {};
    for (const node of childElements(derivation)) {
      const arrayType = node.attributes.find((a) => a.local === 'arrayType' && a.uri === NS.wsdl)?.value;
      if (arrayType !== undefined)
        items = this.type(this.ref(node, arrayType.replace(/(\[[\d,]*\])+$/, ''), ctx, this.types));
    }
    if (Object.keys(items).length === 0) {
      const probe: XmlSchema = { properties: {}, required: [] };
      for (const child of childElements(derivation)) {
        if (child.uri === XSD && child.local !== 'attribute') this.particle(probe, child, ctx, true, false);
      }
      const only = Object.values(probe.properties!)[0];
      if (only) items = (only.items as XmlSchema | undefined) ?? only;
    }
    delete target.properties;
    delete target.required;
    delete target.additionalProperties;
    target.type = 'array';
    target.items = { allOf: [items], xml: { name: 'item' } };
    target.xml = { wrapped: true };
  }

  /** A simpleType: a restriction (its base, with enumerations), a list or a union (strings). */
  private simple(node: XmlElement, ctx: Context): XmlSchema {
    for (const child of childElements(node)) {
      if (child.uri !== XSD) continue;
      if (child.local === 'restriction') {
        const base = attributeOf(child, 'base');
        const inline = childElements(child).find((c) => c.uri === XSD && c.local === 'simpleType');
        const baseSchema =
          base !== undefined
            ? this.type(this.ref(child, base, ctx, this.types))
            : inline
              ? this.simple(inline, ctx)
              : { type: 'string' };
        const values = childElements(child)
          .filter((c) => c.uri === XSD && c.local === 'enumeration')
          .map((c) => attributeOf(c, 'value') ?? '');
        return { allOf: [baseSchema], ...(values.length > 0 ? { enum: values } : {}) };
      }
      if (child.local === 'list' || child.local === 'union') return { type: 'string' };
    }
    return { type: 'string' };
  }
}

/** `{namespace}local` as a designer reads it in a message. */
export function describe(q: QualifiedName): string {
  return q.uri === '' ? q.local : `${q.local} (namespace ${q.uri})`;
}
