import { strict as assert } from 'node:assert';
import { Methods, type CommandInfo } from '../../src/index.js';
import {
  ArborClient,
  SessionView,
  commandCompletions,
  invokedCommand,
  listCommands,
} from '../../src/client/index.js';
import { SESSION } from './builders.js';
import { DAEMON_INIT, FakeDaemon } from './fakeDaemon.js';

const REVIEW: CommandInfo = { name: 'review', kind: 'command', source: 'workspace' };
const RELEASE: CommandInfo = { name: 'release:notes', kind: 'command', source: 'user' };
const PDF: CommandInfo = { name: 'pdf', kind: 'skill', source: 'user', description: 'PDF forms' };

describe('slash commands in the client core (commands.md)', () => {
  it('completes /prefix with commands only, and finds the command a text runs', () => {
    const all = [REVIEW, RELEASE, PDF];
    assert.deepEqual(commandCompletions(all, '/re'), [REVIEW, RELEASE]);
    assert.deepEqual(commandCompletions(all, '/p'), [], 'skills are not run with /');
    assert.deepEqual(
      commandCompletions(all, '/review x'),
      [],
      'arguments started: nothing to complete',
    );
    assert.equal(invokedCommand(all, '/review src/a.ts'), REVIEW);
    assert.equal(invokedCommand(all, '/reviewer'), undefined);
    assert.equal(invokedCommand(all, 'review'), undefined);
  });

  it('SessionView takes commands/changed in seq order (no gap) and keeps the latest list', () => {
    const view = new SessionView(SESSION);
    const seen: (readonly CommandInfo[])[] = [];
    view.on('commands', (list) => seen.push(list));
    view.on('gap', () => assert.fail('commands/changed is a session event, not a gap'));
    view.seedCommands([REVIEW]);
    view.receive({
      method: Methods.CommandsChanged.method,
      params: { sessionId: SESSION, seq: 1, commands: [REVIEW, PDF] },
    });
    assert.deepEqual(view.commands, [REVIEW, PDF]);
    assert.deepEqual(seen, [[REVIEW], [REVIEW, PDF]]);
    assert.equal(view.lastSeq, 1);
  });

  it('lists over commands/list when the daemon advertises commands, else gives none', async () => {
    for (const advertised of [true, false]) {
      const daemon = new FakeDaemon();
      const client = new ArborClient(daemon.clientConnection);
      daemon.answers.set(Methods.Initialize.method, () => ({
        ...DAEMON_INIT,
        capabilities: { ...DAEMON_INIT.capabilities, ...(advertised && { commands: {} }) },
      }));
      daemon.answers.set(Methods.CommandsList.method, () => ({ commands: [REVIEW] }));
      try {
        await client.initialize();
        assert.deepEqual(await listCommands(client, 's_1'), advertised ? [REVIEW] : []);
      } finally {
        client.dispose();
        daemon.dispose();
      }
    }
  });
});
