/**
 * Validates wire messages against the generated JSON Schema, never against the
 * zod sources: the suite checks implementations in any language, so it holds
 * them to the artifact they can read too. The meta-model maps each method to
 * its params/result definitions and names its direction and capability.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

export type Sender = 'client' | 'daemon';

export interface MethodInfo {
  method: string;
  /** `both`: either side may send it (`$/cancelRequest`). */
  direction: 'clientToDaemon' | 'daemonToClient' | 'both';
  kind: 'request' | 'notification';
  capability: string | null;
  spec: string;
  params?: string;
  result?: string;
}

interface MetaModel {
  protocolVersion: number;
  methods: MethodInfo[];
  /** Error code -> the schema of its `data`, where the spec gives it one. */
  errorData?: Record<string, string>;
}

function readJson(specifier: string): unknown {
  return JSON.parse(readFileSync(createRequire(import.meta.url).resolve(specifier), 'utf8'));
}

export type MessageKind = 'request' | 'notification' | 'response';

export interface Classified {
  kind: MessageKind | 'invalid';
  /** Problems, each a short sentence; empty when the message is valid. */
  errors: string[];
}

export class SchemaValidator {
  readonly methods = new Map<string, MethodInfo>();
  readonly protocolVersion: number;
  private readonly errorData: Readonly<Record<string, string>>;
  private readonly ajv: Ajv2020;
  private readonly schemaId: string;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor() {
    const schema = readJson('@arbor/protocol/schema/arbor-protocol.schema.json') as { $id: string };
    const meta = readJson('@arbor/protocol/schema/meta-model.json') as MetaModel;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(schema);
    this.schemaId = schema.$id;
    this.protocolVersion = meta.protocolVersion;
    for (const m of meta.methods) this.methods.set(m.method, m);
    this.errorData = meta.errorData ?? {};
  }

  /** `arbor-protocol.schema.json#/$defs/X` → validator for $defs/X. */
  private validatorFor(ref: string): ValidateFunction {
    const pointer = ref.slice(ref.indexOf('#'));
    let fn = this.cache.get(pointer);
    if (!fn) {
      fn = this.ajv.getSchema(`${this.schemaId}${pointer}`);
      if (!fn) throw new Error(`schema definition ${ref} not found`);
      this.cache.set(pointer, fn);
    }
    return fn;
  }

  private check(ref: string, value: unknown, what: string): string[] {
    const fn = this.validatorFor(ref);
    if (fn(value)) return [];
    return (fn.errors ?? [])
      .slice(0, 5)
      .map((e) => `${what}${e.instancePath || ''} ${e.message ?? 'is invalid'}`);
  }

  /** Envelope, then the method's params, as sent by `sender`. */
  validateMessage(
    msg: unknown,
    sender: Sender,
    answeredMethod?: (id: unknown) => string | undefined,
  ): Classified {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      return { kind: 'invalid', errors: ['the message is not a JSON object'] };
    }
    const m = msg as Record<string, unknown>;
    if ('method' in m) {
      const kind: MessageKind = 'id' in m ? 'request' : 'notification';
      const envelope = this.check(
        `#/$defs/${kind === 'request' ? 'JsonRpcRequest' : 'JsonRpcNotification'}`,
        m,
        'envelope',
      );
      if (envelope.length > 0) return { kind: 'invalid', errors: envelope };
      return { kind, errors: this.validateParams(m.method as string, m.params, sender, kind) };
    }
    const envelope = this.check('#/$defs/JsonRpcResponse', m, 'envelope');
    if ('result' in m && 'error' in m) envelope.push('a response carries both result and error');
    if (envelope.length > 0) return { kind: 'invalid', errors: envelope };
    if ('error' in m) {
      const errors = this.check('#/$defs/ResponseError', m.error, 'error');
      // A code whose data has a shape: data, when sent, must have it (errors.md#error-data).
      const { code, data } = (m.error ?? {}) as { code?: unknown; data?: unknown };
      const dataRef = this.errorData[String(code)];
      if (errors.length === 0 && dataRef !== undefined && data !== undefined)
        errors.push(...this.check(dataRef, data, `data of error ${String(code)}`));
      return { kind: 'response', errors };
    }
    const method = answeredMethod?.(m.id);
    const info = method ? this.methods.get(method) : undefined;
    if (!info?.result) return { kind: 'response', errors: [] };
    return { kind: 'response', errors: this.check(info.result, m.result, `result of ${method}`) };
  }

  private validateParams(
    method: string,
    params: unknown,
    sender: Sender,
    kind: MessageKind,
  ): string[] {
    const info = this.methods.get(method);
    if (!info) return []; // unknown and extension methods: nothing to check
    const expected = sender === 'client' ? 'clientToDaemon' : 'daemonToClient';
    if (info.direction !== expected && info.direction !== 'both')
      return [`${method} is a ${info.direction} method, sent by the ${sender}`];
    if (info.kind !== kind) return [`${method} is a ${info.kind}, sent as a ${kind}`];
    if (!info.params) return [];
    // `"params": null` means params omitted, for every method (transport.md#transport-null-params).
    if (params === undefined || params === null) {
      // Omitted params are fine where the schema allows absence (null-typed or defaulted).
      const fn = this.validatorFor(info.params);
      const schema = fn.schema as { type?: string; default?: unknown };
      if (schema.type === 'null' || schema.default !== undefined) return [];
      params = {};
    }
    return this.check(info.params, params, `params of ${method}`);
  }

  /** The definition names of a method's params and result, for reports. */
  info(method: string): MethodInfo | undefined {
    return this.methods.get(method);
  }
}

let shared: SchemaValidator | undefined;
/** Compiling the schema takes a moment; every connection shares one validator. */
export function sharedValidator(): SchemaValidator {
  shared ??= new SchemaValidator();
  return shared;
}
