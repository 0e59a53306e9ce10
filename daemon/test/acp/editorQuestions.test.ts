/**
 * The model's questions (ask_user) in an ACP editor (daemon/docs/acp.md): an
 * editor with form elicitation gets `elicitation/create` and its answer is
 * the tool's result; an editor without it picks among the options in a
 * permission request; a free-text question it cannot show is dismissed and
 * the turn goes on without an answer.
 */
import assert from 'node:assert/strict';
import type { ScriptInput } from '@arbor/protocol';
import {
  methods,
  type ClientApp,
  type ClientCapabilities,
  type CreateElicitationRequest,
  type ToolCall,
} from '@agentclientprotocol/sdk';
import { closeAll, scriptedAcp, tempDir, writeScript, type AcpEditor } from './acpProcess.js';
import { foldUpdates } from './sessionFold.js';

const RUNNERS = [
  { label: 'Vitest', description: 'the newer tests' },
  { label: 'Jest', description: 'the legacy packages' },
];
const SCRIPT: ScriptInput = {
  version: 1,
  conversations: {
    'Pick a runner': [
      {
        toolCalls: [
          {
            name: 'ask_user',
            arguments: { question: 'Which runner?', options: RUNNERS, freeText: false },
          },
        ],
      },
      { text: 'Noted.' },
    ],
    'Name the flag': [
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'What should the flag be?' } }] },
      { text: 'Going on.' },
    ],
  },
};

describe('arbor acp: the model asks the editor’s user', function () {
  this.timeout(60_000);
  const editors: AcpEditor[] = [];
  let elicitations: CreateElicitationRequest[];

  afterEach(() => closeAll(editors, 10_000));

  async function session(
    capabilities: ClientCapabilities,
    answer?: (request: CreateElicitationRequest) => unknown,
  ): Promise<{ editor: AcpEditor; sessionId: string }> {
    const dataDir = tempDir('arbor-acp-ask-');
    elicitations = [];
    const handlers = (app: ClientApp): ClientApp =>
      app.onRequest(methods.client.elicitation.create, ({ params }) => {
        elicitations.push(params);
        return (answer?.(params) ?? { action: 'decline' }) as never;
      });
    const editor = scriptedAcp(dataDir, writeScript(dataDir, SCRIPT), [], { handlers });
    editors.push(editor);
    await editor.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: capabilities,
    });
    const { sessionId } = await editor.agent.request(methods.agent.session.new, {
      cwd: tempDir('arbor-acp-ask-ws-'),
      mcpServers: [],
    });
    return { editor, sessionId };
  }

  const prompt = (editor: AcpEditor, sessionId: string, text: string) =>
    editor.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });

  function askCall(editor: AcpEditor, sessionId: string): ToolCall {
    const folded = foldUpdates(editor.updates.filter((n) => n.sessionId === sessionId));
    const calls = folded.toolCallOrder.map((id) => folded.toolCalls.get(id)!);
    const call = calls.find((c) => /ask_user|runner|flag/i.test(c.title));
    assert.ok(call, `an ask_user tool call among ${calls.map((c) => c.title).join(', ')}`);
    return call;
  }

  const textOf = (call: ToolCall) =>
    (call.content ?? [])
      .map((item) =>
        item.type === 'content' && item.content.type === 'text' ? item.content.text : '',
      )
      .join('\n');

  it('form elicitation: the options are a choice, and the answer reaches the model', async () => {
    const { editor, sessionId } = await session({ elicitation: { form: {} } }, () => ({
      action: 'accept',
      content: { answer: 'Jest' },
    }));
    const end = await prompt(editor, sessionId, 'Pick a runner');
    assert.equal(end.stopReason, 'end_turn');
    assert.equal(elicitations.length, 1);
    const [asked] = elicitations as [CreateElicitationRequest & Record<string, unknown>];
    assert.equal(asked.mode, 'form');
    assert.equal(asked.message, 'Which runner?');
    assert.equal(asked['sessionId'], sessionId);
    const schema = asked['requestedSchema'] as {
      properties: { answer: { oneOf: { const: string }[] } };
      required: string[];
    };
    assert.deepEqual(
      schema.properties.answer.oneOf.map((o) => o.const),
      ['Vitest', 'Jest'],
    );
    assert.deepEqual(schema.required, ['answer']);
    const call = askCall(editor, sessionId);
    assert.equal(call.status, 'completed');
    assert.match(textOf(call), /The user answered: Jest/);
  });

  it('without elicitation, the options come as a permission request', async () => {
    const { editor, sessionId } = await session({});
    editor.onPermission = (request) => {
      assert.deepEqual(
        request.options.map((o) => o.name),
        ['Vitest', 'Jest', 'Skip'],
      );
      return { outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } };
    };
    await prompt(editor, sessionId, 'Pick a runner');
    assert.equal(editor.permissionRequests.length, 1);
    assert.equal(editor.permissionRequests[0]!.toolCall.title, 'Which runner?');
    assert.match(textOf(askCall(editor, sessionId)), /The user answered: Vitest/);
  });

  it('a free-text question an editor cannot show is dismissed; the turn goes on', async () => {
    const { editor, sessionId } = await session({});
    const end = await prompt(editor, sessionId, 'Name the flag');
    assert.equal(end.stopReason, 'end_turn');
    assert.equal(editor.permissionRequests.length, 0);
    const call = askCall(editor, sessionId);
    assert.equal(call.status, 'failed');
    assert.match(textOf(call), /could not be asked or dismissed/);
  });

  it('declining the form dismisses the question', async () => {
    const { editor, sessionId } = await session({ elicitation: { form: {} } }, () => ({
      action: 'decline',
    }));
    await prompt(editor, sessionId, 'Name the flag');
    assert.equal(elicitations.length, 1);
    assert.match(textOf(askCall(editor, sessionId)), /could not be asked or dismissed/);
  });
});
