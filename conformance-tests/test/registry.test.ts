/** Every check cites an anchor that exists in the written spec; ids are unique and reachable. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHECKS } from '../src/checks/registry.js';
import { CLIENT_SCENARIOS } from '../src/scenarios/client/index.js';
import { DAEMON_SCENARIOS } from '../src/scenarios/daemon/index.js';
import { scenariosJudging } from '../src/suite.js';

const SPEC = fileURLToPath(new URL('../../protocol-spec/spec/', import.meta.url));

describe('the check registry', () => {
  it('cites only anchors that exist in protocol-spec/spec', () => {
    const missing = CHECKS.filter((c) => {
      const [file, anchor] = c.spec.split('#');
      return !readFileSync(`${SPEC}${file}`, 'utf8').includes(`<a id="${anchor}"></a>`);
    }).map((c) => `${c.id} -> ${c.spec}`);
    assert.deepEqual(missing, []);
  });

  it('has unique ids, prefixed by the role they judge; CAPABILITY checks name their capability', () => {
    assert.equal(new Set(CHECKS.map((c) => c.id)).size, CHECKS.length);
    for (const c of CHECKS) {
      assert.ok(c.id.startsWith(`${c.role}.`), c.id);
      assert.equal(c.tier === 'CAPABILITY', c.capability !== undefined, c.id);
    }
  });

  it('every check is always on or listed by a scenario of its role', () => {
    const listed = new Set(
      [...DAEMON_SCENARIOS, ...CLIENT_SCENARIOS].flatMap((s) =>
        s.checks.map((id) => `${s.role}:${id}`),
      ),
    );
    const orphans = CHECKS.filter(
      (c) => !c.id.includes('.wire.') && !listed.has(`${c.role}:${c.id}`),
    ).map((c) => c.id);
    assert.deepEqual(orphans, []);
  });

  it('selects the scenarios that judge a check: those that list it, every one for an always-on check', () => {
    assert.deepEqual(scenariosJudging('daemon', 'daemon.sessions.detach'), ['daemon-detach-turn']);
    assert.deepEqual(
      scenariosJudging('daemon', 'daemon.wire.frames'),
      DAEMON_SCENARIOS.map((s) => s.id),
    );
    assert.deepEqual(
      scenariosJudging('client', 'client.wire.ids-unique'),
      CLIENT_SCENARIOS.map((s) => s.id),
    );
    assert.throws(() => scenariosJudging('client', 'daemon.sessions.detach'), /not a client/);
    assert.throws(() => scenariosJudging('daemon', 'daemon.no-such-check'), /unknown check id/);
  });
});
