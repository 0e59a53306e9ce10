/** Where profiles come from and the config's startup checks, without a daemon. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentProfile } from '../../src/agents/agentProfile.js';
import { AgentProfileError, AgentProfiles } from '../../src/agents/agentProfiles.js';
import { checkConfigAgents } from '../../src/agents/checkConfigAgents.js';
import { ConfigFile } from '../../src/config/configSchema.js';
import { ConfigError, resolveConfig } from '../../src/config/daemonConfig.js';
import { tempDir } from '../permissions/helpers.js';

function workspace(files: Record<string, string>): string {
  const ws = tempDir();
  mkdirSync(join(ws, '.arbor/agents'), { recursive: true });
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(ws, '.arbor/agents', name), text);
  return ws;
}

describe('agent profiles: sources', () => {
  const config = { reviewer: AgentProfile.parse({ description: 'config' }) };

  it('a broken workspace file hides the config profile of its name; session/new gets why', () => {
    const ws = workspace({ 'reviewer.json': '{"tools": "read_file"}' });
    const profiles = new AgentProfiles(config);
    const { profiles: listed, errors } = profiles.list(ws);
    assert.deepEqual(listed, []);
    assert.equal(errors[0]!.file, '.arbor/agents/reviewer.json');
    assert.match(errors[0]!.message, /^is invalid: tools: /);
    assert.throws(
      () => profiles.resolve(ws, 'reviewer'),
      (error: Error) =>
        error instanceof AgentProfileError &&
        /agent "reviewer" cannot be used: \.arbor\/agents\/reviewer\.json is invalid/.test(
          error.message,
        ),
    );
  });

  it('a file not named as an agent is listed as an error; $schema is allowed', () => {
    const ws = workspace({
      'Bad Name.json': '{}',
      'ok.json': '{"$schema": "../../agent-profile.schema.json", "description": "fine"}',
    });
    const { profiles, errors } = new AgentProfiles().list(ws);
    assert.deepEqual(
      profiles.map((p) => [p.name, p.profile.description]),
      [['ok', 'fine']],
    );
    assert.deepEqual(
      errors.map((e) => e.file),
      ['.arbor/agents/Bad Name.json'],
    );
  });

  it('an unknown name lists the known ones', () => {
    assert.throws(
      () => new AgentProfiles(config).resolve(tempDir(), 'nobody'),
      /unknown agent "nobody" \(known: reviewer\)/,
    );
  });
});

describe('agent profiles: config checks at startup', () => {
  const check = (file: object) => () =>
    checkConfigAgents(resolveConfig(ConfigFile.parse(file), {}, {}));

  it('hitlTools: built-in names and MCP tools of configured servers pass; others name themselves', () => {
    const mcpServers = { github: { command: 'gh-mcp' } };
    check({ mcpServers, agents: { a: { hitlTools: ['write_file', 'mcp__github__merge'] } } })();
    assert.throws(
      check({ mcpServers, agents: { a: { hitlTools: ['mcp__gitlab__merge'] } } }),
      (error: Error) =>
        error instanceof ConfigError &&
        /agents\.a\.hitlTools names unknown tools: mcp__gitlab__merge/.test(error.message),
    );
    // A workspace's .arbor/mcp.json may add servers no startup check can see.
    check({ mcp: { workspaceFile: true }, agents: { a: { hitlTools: ['mcp__any__x'] } } })();
  });

  it('defaultAgent must be one of agents', () => {
    check({ agents: { a: {} }, defaultAgent: 'a' })();
    assert.throws(
      check({ agents: { a: {} }, defaultAgent: 'b' }),
      /defaultAgent "b" is not one of agents \(a\)/,
    );
  });
});
