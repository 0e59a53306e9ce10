/**
 * security.md#security-confined-race: confinement has no window between
 * check and use. A separate process swaps path components of the workspace
 * back and forth between real directories and symbolic links — one to a
 * directory outside the workspace holding canaries, one to the workspace's
 * `.git/` — while the workspace tools run over 1,000 calls through them. No
 * canary may reach a result, nothing may be written outside, and no write may
 * land in `.git/` without the gate having classed it as protected.
 */
import assert from 'node:assert/strict';
import type { GateRequest } from '../../src/agent/toolGate.js';
import { createPermissionGate } from '../../src/permissions/permissionGate.js';
import type { Tool } from '../../src/tools/tool.js';
import { createWorkspaceTools, openWorkspace } from '../../src/tools/workspace/index.js';
import {
  buildRaceFixture,
  raceDamage,
  raceRound,
  startSwapper,
} from '../../reliability/symlinkRace.js';
import { tempDir } from '../permissions/helpers.js';
import { toolContext } from './toolContext.js';

// The swapper, the fixture and the damage check are shared with the
// reliability suite (reliability/race.ts), which runs the same race through
// the spawned daemon.

const CALLS = 2000;

describe('workspace confinement under a concurrent swap', function () {
  this.timeout(60_000);

  it('1,000+ tool calls racing a swapping process: 0 leaks, 0 writes outside, 0 unasked .git writes', async () => {
    const fixture = buildRaceFixture(tempDir('arbor-race-'));
    const { ws, token, pairs } = fixture;

    const tools = new Map(
      createWorkspaceTools(openWorkspace(ws, { watch: false })).map((t) => [t.name, t]),
    );
    const gate = createPermissionGate({ alwaysAsk: [] });
    const turn = { workspaceRoot: ws, permissionMode: () => 'auto', sessionId: 's', turnId: 't' };

    let calls = 0;
    let succeeded = 0;
    let refused = 0;
    let askedForGit = 0;
    const leaks: string[] = [];
    const run = async (name: string, args: unknown): Promise<void> => {
      const tool = tools.get(name) as Tool;
      const parsed = tool.input.parse(args);
      // The real gate in auto mode with no one to ask: a protected write is denied.
      const decision = await gate({
        turn,
        tool,
        args: parsed,
        nodeId: 'n',
        toolCallId: 'c',
        depth: 0,
        signal: new AbortController().signal,
        awaitingApproval: () => undefined,
        setApproval: () => undefined,
        setRule: () => undefined,
      } as unknown as GateRequest);
      if (!decision.allow) {
        askedForGit += 1;
        return;
      }
      calls += 1;
      let content: string;
      try {
        const out = await tool.execute(parsed, toolContext());
        content = typeof out === 'string' ? out : out.content;
        if (typeof out === 'string' || out.isError !== true) succeeded += 1;
        else refused += 1;
      } catch (error) {
        assert.fail(`${name} threw out of the turn: ${String(error)}`);
      }
      if (content.includes(token)) leaks.push(`${name} ${JSON.stringify(args)}: ${content}`);
    };

    const { child, swaps } = startSwapper(pairs);
    const started = Date.now();
    try {
      // Let the swapper get going before the first call.
      await new Promise((r) => setTimeout(r, 100));
      for (let i = 0; calls < CALLS; i++) {
        for (const call of raceRound(i)) await run(call.name, call.args);
      }
    } finally {
      child.stdin!.end();
    }
    const swapCount = await swaps;
    const elapsed = Date.now() - started;

    const { writtenOutside, gitWrites, copiedIn, rootAfter } = raceDamage(fixture);

    console.log(
      `      race: ${calls} calls (${succeeded} ok, ${refused} refused/failed, ` +
        `${askedForGit} stopped by the gate) against ${swapCount} swaps in ${elapsed} ms: ` +
        `${leaks.length} leaks, ${copiedIn.length} copied in, ${writtenOutside.length} written outside, ` +
        `${gitWrites.length} unasked .git writes`,
    );
    assert.ok(calls >= CALLS, `${calls} calls`);
    assert.ok(swapCount > 1000, `the swapper raced (${swapCount} swaps)`);
    assert.ok(succeeded >= 50, `the tools still work between swaps (${succeeded} ok)`);
    assert.deepEqual(leaks, [], `${leaks.length} results carried outside content`);
    assert.deepEqual(copiedIn, [], `${copiedIn.length} workspace files got outside content`);
    assert.deepEqual(writtenOutside, [], `${writtenOutside.length} entries written outside`);
    assert.deepEqual(rootAfter, fixture.rootBefore, 'nothing created next to the workspace');
    assert.deepEqual(gitWrites, [], `${gitWrites.length} writes in .git/ bypassed the gate`);
  });
});
