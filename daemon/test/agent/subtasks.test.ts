import assert from 'node:assert/strict';
import { TURN_ID, nodes, runTurn, script, sleepTool, toolMessages, type Span } from './harness.js';

const subtask = (title: string, instructions: string, extra: Record<string, unknown> = {}) => ({
  name: 'run_subtask',
  arguments: { title, instructions, ...extra },
});

const PERSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
};

describe('agent subtasks (run_subtask)', () => {
  it('at depth 0 spawns a child loop with isolated history and returns its result', async () => {
    const run = await runTurn(
      script({
        'Summarise the repo': [
          { toolCalls: [subtask('Read the README', 'Read the README and summarise it')] },
          { text: 'Summary: fine.' },
        ],
        'Read the README': [{ text: 'The README says hello.' }],
      }),
      {
        text: 'Summarise the repo',
        history: [
          { role: 'user', content: 'earlier question' },
          { role: 'assistant', content: 'earlier answer' },
        ],
      },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(run.result.text, 'Summary: fine.');

    const childRequest = run.provider.requests.find(
      (r) => r.messages[0]?.content === 'Read the README and summarise it',
    );
    assert.ok(childRequest, 'the child loop called the model');
    assert.deepEqual(
      childRequest.messages,
      [{ role: 'user', content: 'Read the README and summarise it' }],
      'only the instructions',
    );
    assert.match(childRequest.system, /subtask/);
    assert.equal(run.provider.requests[0]?.messages.length, 3, 'the root sees the session history');
    assert.match(run.provider.requests[0]!.system, /cannot see each other/);

    const [turn, sub] = nodes(run);
    assert.deepEqual(
      [sub?.kind, sub?.name, sub?.title, sub?.parentId, sub?.depth, sub?.status],
      ['subtask', 'run_subtask', 'Read the README', turn?.id, 0, 'done'],
    );
    assert.equal(
      run.sink.textOf(sub!.id),
      'The README says hello.',
      'child text is tagged with the subtask node',
    );
    assert.equal(run.sink.textOf(TURN_ID), 'Summary: fine.');
    const [result] = toolMessages(run.provider.requests.at(-1)!);
    assert.deepEqual([result?.content, result?.isError], ['The README says hello.', false]);
  });

  it('writes each result to shared memory as task:<id>, readable from every depth', async () => {
    const run = await runTurn(
      script({
        '*': [
          { toolCalls: [subtask('one', 'first job'), subtask('two', 'second job')] },
          { toolCalls: [{ name: 'memory_list' }] },
          { text: 'done' },
        ],
        'first job': [
          { toolCalls: [{ name: 'memory_write', arguments: { key: 'note', value: 'from one' } }] },
          { text: 'result one' },
        ],
        'second job': [{ text: 'result two' }],
      }),
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const subs = nodes(run).filter((n) => n.kind === 'subtask');
    const [list] = toolMessages(run.provider.requests.at(-1)!).slice(-1);
    for (const sub of subs) assert.match(list!.content, new RegExp(`task:${sub.id}`));
    assert.match(list!.content, /note/);
  });

  it('runs sibling subtasks concurrently', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          { toolCalls: [subtask('a', 'job a'), subtask('b', 'job b'), subtask('c', 'job c')] },
          { text: 'done' },
        ],
        'job ': [{ toolCalls: [{ name: 'sleep', arguments: { ms: 150 } }] }, { text: 'slept' }],
      }),
      { tools: [sleepTool(spans)] },
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.equal(spans.length, 3);
    assert.ok(
      Math.max(...spans.map((s) => s.start)) < Math.min(...spans.map((s) => s.end)),
      'overlap',
    );
  });

  it('at the depth limit answers run_subtask with a tool error, without recursing', async () => {
    const run = await runTurn(
      script({
        '*': [{ toolCalls: [subtask('L1', 'level one')] }, { text: 'root done' }],
        'level one': [{ toolCalls: [subtask('L2', 'level two')] }, { text: 'one done' }],
        'level two': [{ toolCalls: [subtask('L3', 'level three')] }, { text: 'two done' }],
        'level three': [{ toolCalls: [subtask('L4', 'level four')] }, { text: 'three done' }],
        'level four': [{ text: 'must never run' }],
      }),
    );
    assert.equal(run.result.stopReason, 'end_turn');
    assert.ok(
      !run.provider.requests.some((r) => r.messages[0]?.content === 'level four'),
      'no fourth level',
    );
    const l3Request = run.provider.requests.find((r) => r.messages[0]?.content === 'level three');
    assert.ok(
      !l3Request?.tools?.some((t) => t.name === 'run_subtask'),
      'run_subtask is not offered at the limit',
    );
    const l4 = nodes(run).find((n) => n.title === 'L4');
    assert.deepEqual([l4?.status, l4?.depth], ['error', 3]);
    assert.match(String(l4?.resultPreview), /Depth limit reached/);
    assert.deepEqual(
      nodes(run)
        .filter((n) => n.kind === 'subtask')
        .map((n) => n.depth),
      [0, 1, 2, 3],
    );
  });

  it('restricts the child to the named subset of tools; an unknown name is an error', async () => {
    const spans: Span[] = [];
    const run = await runTurn(
      script({
        '*': [
          {
            toolCalls: [
              subtask('restricted', 'restricted job', { tools: ['sleep'] }),
              subtask('bad', 'bad job', { tools: ['rm_rf'] }),
            ],
          },
          { text: 'done' },
        ],
        'restricted job': [{ text: 'ok' }],
      }),
      { tools: [sleepTool(spans)] },
    );
    const child = run.provider.requests.find((r) => r.messages[0]?.content === 'restricted job');
    assert.deepEqual(child?.tools?.map((t) => t.name).sort(), [
      'memory_list',
      'memory_read',
      'memory_write',
      'sleep',
    ]);
    const [, bad] = toolMessages(run.provider.requests.at(-1)!);
    assert.equal(bad?.isError, true);
    assert.match(bad!.content, /Unknown tools for the subtask: rm_rf/);
  });

  describe('structured output (output_schema + finish_subtask)', () => {
    it('accepts a valid payload', async () => {
      const run = await runTurn(
        script({
          '*': [
            {
              toolCalls: [
                subtask('person', 'extract the person', { output_schema: PERSON_SCHEMA }),
              ],
            },
            { text: 'done' },
          ],
          'extract the person': [
            { toolCalls: [{ name: 'finish_subtask', arguments: { name: 'Ada', age: 36 } }] },
          ],
        }),
      );
      assert.equal(run.result.stopReason, 'end_turn');
      const child = run.provider.requests.find(
        (r) => r.messages[0]?.content === 'extract the person',
      );
      const finish = child?.tools?.find((t) => t.name === 'finish_subtask');
      assert.deepEqual(finish?.inputSchema, PERSON_SCHEMA);
      assert.match(child!.system, /finish_subtask/);
      const [result] = toolMessages(run.provider.requests.at(-1)!);
      assert.deepEqual(
        [JSON.parse(result!.content), result?.isError],
        [{ name: 'Ada', age: 36 }, false],
      );
    });

    it('feeds an invalid payload back as an error result, and the corrected one is accepted', async () => {
      const run = await runTurn(
        script({
          '*': [
            {
              toolCalls: [
                subtask('person', 'extract the person', { output_schema: PERSON_SCHEMA }),
              ],
            },
            { text: 'done' },
          ],
          'extract the person': [
            { toolCalls: [{ name: 'finish_subtask', arguments: { name: 'Ada', age: 'old' } }] },
            { toolCalls: [{ name: 'finish_subtask', arguments: { name: 'Ada', age: 36 } }] },
          ],
        }),
      );
      const childCalls = run.provider.requests.filter(
        (r) => r.messages[0]?.content === 'extract the person',
      );
      assert.equal(childCalls.length, 2);
      const [feedback] = toolMessages(childCalls[1]!);
      assert.equal(feedback?.isError, true);
      assert.match(feedback!.content, /\/age must be integer/);
      const [result] = toolMessages(run.provider.requests.at(-1)!);
      assert.deepEqual(JSON.parse(result!.content), { name: 'Ada', age: 36 });
      assert.equal(nodes(run).find((n) => n.kind === 'subtask')?.status, 'done');
    });

    it('fails with schema_not_satisfied after 3 retries', async () => {
      const invalid = { toolCalls: [{ name: 'finish_subtask', arguments: { name: 'Ada' } }] };
      const run = await runTurn(
        script({
          '*': [
            {
              toolCalls: [
                subtask('person', 'extract the person', { output_schema: PERSON_SCHEMA }),
              ],
            },
            { text: 'gave up' },
          ],
          'extract the person': [invalid, invalid, invalid, invalid, { text: 'never asked' }],
        }),
      );
      assert.equal(run.result.stopReason, 'end_turn');
      assert.equal(
        run.provider.requests.filter((r) => r.messages[0]?.content === 'extract the person').length,
        4,
      );
      const [result] = toolMessages(run.provider.requests.at(-1)!);
      assert.equal(result?.isError, true);
      const error = JSON.parse(result!.content) as { error: string; errors: string[] };
      assert.equal(error.error, 'schema_not_satisfied');
      assert.ok(error.errors.some((e) => /age/.test(e)));
      assert.equal(nodes(run).find((n) => n.kind === 'subtask')?.status, 'error');
    });

    it('fails with schema_not_satisfied when the subtask answers without finish_subtask', async () => {
      const run = await runTurn(
        script({
          '*': [
            {
              toolCalls: [
                subtask('person', 'extract the person', { output_schema: PERSON_SCHEMA }),
              ],
            },
            { text: 'done' },
          ],
          'extract the person': [{ text: 'Ada, 36' }],
        }),
      );
      const [result] = toolMessages(run.provider.requests.at(-1)!);
      assert.equal(result?.isError, true);
      assert.equal(
        (JSON.parse(result!.content) as { error: string }).error,
        'schema_not_satisfied',
      );
    });

    it('rejects an output_schema that is not a JSON Schema', async () => {
      const run = await runTurn(
        script({
          '*': [
            { toolCalls: [subtask('x', 'x job', { output_schema: { type: 'no-such-type' } })] },
            { text: 'done' },
          ],
        }),
      );
      const [result] = toolMessages(run.provider.requests.at(-1)!);
      assert.equal(result?.isError, true);
      assert.match(result!.content, /not a valid JSON Schema/);
    });
  });

  it('a subtask whose model fails is an error result for the parent; the turn goes on', async () => {
    const run = await runTurn(
      script({
        '*': [{ toolCalls: [subtask('x', 'failing job')] }, { text: 'handled' }],
        'failing job': [{ error: 'boom' }],
      }),
    );
    assert.equal(run.result.stopReason, 'end_turn');
    const [result] = toolMessages(run.provider.requests.at(-1)!);
    assert.deepEqual([result?.isError, /boom/.test(result!.content)], [true, true]);
  });
});

describe('agent prompts tell the model the permission mode', () => {
  for (const [mode, expected] of [
    ['plan', /plan mode: only tools that read run/],
    ['default', /ask the user first/],
    ['auto', /run without asking/],
  ] as const) {
    it(`${mode}: the root and every subtask loop are told`, async () => {
      const run = await runTurn(
        script({
          'Check the repo': [
            { toolCalls: [subtask('Look around', 'List what is there')] },
            { text: 'Done.' },
          ],
          'List what is there': [{ text: 'Two files.' }],
        }),
        { text: 'Check the repo', permissionMode: mode },
      );
      assert.equal(run.provider.requests.length, 3);
      for (const request of run.provider.requests) assert.match(request.system, expected);
    });
  }
});
