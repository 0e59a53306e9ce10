/**
 * Injected tool arguments (an agent profile's `injectedToolArgs`): properties
 * the model is asked to give with every tool call — a `reason`, say — that
 * are not the tool's. They are offered in a copy of each tool's schema, split
 * off the model's call before anything else sees it (validation, hooks, the
 * gate, the tool), and shown instead on the call's tree node and in its
 * approval request, where a user weighs them (tree.md#node-injected-args).
 */
import type { InjectedArgs } from '@arbor/protocol';
import type { NamedAgentProfile } from '../agents/agentProfile.js';
import type { ToolDefinition } from '../providers/provider.js';
import { preview } from './executionTree.js';

/** A model call's arguments, without what was injected; `injected` only when the model gave some. */
export interface SplitArguments {
  args: unknown;
  injected?: InjectedArgs;
}

export class InjectedToolArgs {
  /** Offered schemas by the tool's own definition: built once per definition, never its own object. */
  private readonly offered = new WeakMap<ToolDefinition, ToolDefinition>();

  private constructor(private readonly descriptions: Readonly<Record<string, string>>) {}

  /** The profile's injected arguments; undefined when it has none (nothing to offer or split). */
  static of(agent: NamedAgentProfile | undefined): InjectedToolArgs | undefined {
    const descriptions = agent?.profile.injectedToolArgs ?? {};
    return Object.keys(descriptions).length === 0 ? undefined : new InjectedToolArgs(descriptions);
  }

  /**
   * The tool as the model is offered it: a deep copy of its schema with each
   * injected argument as an optional string property. A property the tool
   * has itself keeps its meaning, and a schema that is not an object's
   * (a structured subtask's result may be an array) is offered unchanged.
   */
  offer(definition: ToolDefinition): ToolDefinition {
    const cached = this.offered.get(definition);
    if (cached) return cached;
    const names = this.namesFor(definition);
    let offered = definition;
    if (names.length > 0) {
      const schema = structuredClone(definition.inputSchema);
      const properties = { ...(schema.properties as Record<string, unknown> | undefined) };
      for (const name of names) {
        properties[name] = { type: 'string', description: this.descriptions[name] };
      }
      offered = { ...definition, inputSchema: { ...schema, properties } };
    }
    this.offered.set(definition, offered);
    return offered;
  }

  /**
   * Splits a model's call: the tool's own arguments go on, the injected ones
   * are kept apart as previews (cut to the node preview limit, strings as
   * given, anything else as JSON). `definition` undefined (a tool the model
   * made up): every injected name is split off.
   */
  split(definition: ToolDefinition | undefined, args: unknown): SplitArguments {
    if (!isPlainObject(args)) return { args };
    const names =
      definition === undefined ? Object.keys(this.descriptions) : this.namesFor(definition);
    const present = names.filter((name) => Object.hasOwn(args, name));
    if (present.length === 0) return { args };
    const rest: Record<string, unknown> = { ...args };
    const injected: InjectedArgs = {};
    for (const name of present) {
      const value = rest[name];
      delete rest[name];
      if (value === undefined || value === null) continue;
      injected[name] = preview(value);
    }
    return Object.keys(injected).length === 0 ? { args: rest } : { args: rest, injected };
  }

  /** The injected names this tool gets: none for a non-object schema, none it has itself. */
  private namesFor(definition: ToolDefinition): string[] {
    const schema = definition.inputSchema;
    if (schema.type !== undefined && schema.type !== 'object') return [];
    const own = isPlainObject(schema.properties) ? schema.properties : {};
    return Object.keys(this.descriptions).filter((name) => !Object.hasOwn(own, name));
  }
}

/** A JSON object; not an array, not a refusal (RefusedArguments) standing in for arguments. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
