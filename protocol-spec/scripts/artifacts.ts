/**
 * Builds the generated artifacts from the zod schemas: the JSON Schema
 * (2020-12) every non-TypeScript implementation can validate against, and the
 * meta-model listing every method. `generate.ts` writes them; a test checks
 * that the checked-in copies are not stale.
 */
import { z } from 'zod';
import * as P from '../src/index.js';

export const SCHEMA_ID = 'https://arbor.dev/protocol/v1/arbor-protocol.schema.json';

/** Shared types that get a `$defs` entry of their own, in this order. */
const sharedTypes: Record<string, z.ZodType> = {
  Empty: P.Empty,
  SessionRef: P.SessionRef,
  SessionInfo: P.SessionInfo,
  Usage: P.Usage,
  PermissionMode: P.PermissionMode,
  ToolCategory: P.ToolCategory,
  StopReason: P.StopReason,
  ChatContext: P.ChatContext,
  ApprovalDecision: P.ApprovalDecision,
  ApprovalOutcome: P.ApprovalOutcome,
  DecidingRule: P.DecidingRule,
  PermissionRuleInfo: P.PermissionRuleInfo,
  BudgetKind: P.BudgetKind,
  NodeStatus: P.NodeStatus,
  TurnState: P.TurnState,
  ExecutionTreeNode: P.ExecutionTreeNode,
  ExecutionTreeSnapshot: P.ExecutionTreeSnapshot,
  StoredMessage: P.StoredMessage,
  ClientCapabilities: P.ClientCapabilities,
  DaemonCapabilities: P.DaemonCapabilities,
  ClientToolDeclaration: P.ClientToolDeclaration,
  ToolInfo: P.ToolInfo,
  CommandInfo: P.CommandInfo,
  PlanEntry: P.PlanEntry,
  ModelCost: P.ModelCost,
  QuestionOption: P.QuestionOption,
  QuestionOutcome: P.QuestionOutcome,
  FileChangeStatus: P.FileChangeStatus,
  TurnFileChange: P.TurnFileChange,
  TurnChanges: P.TurnChanges,
  Script: P.Script,
  ResponseError: P.ResponseError,
  UnsupportedProtocolVersionData: P.UnsupportedProtocolVersionData,
  MessageTooLargeData: P.MessageTooLargeData,
  TurnInProgressData: P.TurnInProgressData,
  CheckpointConflictData: P.CheckpointConflictData,
  JsonRpcRequest: P.JsonRpcRequest,
  JsonRpcNotification: P.JsonRpcNotification,
  JsonRpcResponse: P.JsonRpcResponse,
};

/** `$defs` names of a method's params and result, e.g. SessionNewParams. */
export function defNames(key: keyof typeof P.Methods) {
  return { params: `${key}Params`, result: `${key}Result` };
}

function registry() {
  const reg = z.registry<{ id: string }>();
  // Shared types first: a schema used by several methods is named for what it is.
  for (const [id, schema] of Object.entries(sharedTypes)) reg.add(schema, { id });
  for (const [key, d] of Object.entries(P.Methods) as [
    keyof typeof P.Methods,
    P.MethodDescriptor,
  ][]) {
    const names = defNames(key);
    if (!reg.has(d.params)) reg.add(d.params, { id: names.params });
    if (d.kind === 'request' && !reg.has(d.result)) reg.add(d.result, { id: names.result });
  }
  return reg;
}

export function buildJsonSchema(): Record<string, unknown> {
  const reg = registry();
  const { schemas } = z.toJSONSchema(reg, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    uri: (id) => `#/$defs/${id}`,
  });
  const defs: Record<string, unknown> = {};
  for (const [id, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) {
    const { $schema: _s, $id: _i, ...rest } = schema as Record<string, unknown>;
    defs[id] = rest;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: SCHEMA_ID,
    title: `Arbor Agent Protocol v${P.PROTOCOL_VERSION}`,
    description:
      'Generated from the zod schemas of @arbor/protocol by `npm run generate`. Do not edit. ' +
      'Params and results of each method are under $defs, named <Method>Params / <Method>Result; ' +
      'meta-model.json maps method names to them.',
    $defs: defs,
  };
}

export function buildMetaModel(): Record<string, unknown> {
  const reg = registry();
  const ref = (schema: z.ZodType) => `arbor-protocol.schema.json#/$defs/${reg.get(schema)!.id}`;
  return {
    protocolVersion: P.PROTOCOL_VERSION,
    packageVersion: P.PROTOCOL_PACKAGE_VERSION,
    methods: Object.entries(P.Methods).map(([name, d]) => ({
      name,
      method: d.method,
      direction: d.direction,
      kind: d.kind,
      capability: d.capability,
      since: d.since,
      summary: d.summary,
      spec: `spec/${d.specRef}`,
      params: ref(d.params),
      ...(d.kind === 'request' ? { result: ref(d.result) } : {}),
    })),
    errorCodes: {
      jsonRpc: P.JsonRpcErrorCodes,
      lsp: P.LspErrorCodes,
      arbor: P.ArborErrorCodes,
      arborRange: P.ArborErrorRange,
    },
    /** Error code -> the schema of its `data` (errors.md#error-data). */
    errorData: Object.fromEntries(
      Object.entries(P.ERROR_DATA_SCHEMAS).map(([code, schema]) => [code, ref(schema)]),
    ),
  };
}

export function serialize(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
