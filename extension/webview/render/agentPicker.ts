/**
 * The agent profile of a new chat (agents.md): a select of the profiles the
 * daemon lists for the workspace, showing the open chat's. A session keeps
 * its profile, so a pick starts a new chat with it ("No agent": without one);
 * the select shows the open chat's until the host switches chats. Hidden
 * when the daemon has no profiles. Profile files that cannot be used are
 * named in the tooltip, so a typo in one is not a silent absence.
 */
import type { AgentFileError, AgentInfo } from '@arbor/protocol';
import { h, setAttr } from './dom.js';

const NONE = '';

export class AgentPicker {
  readonly el: HTMLSelectElement;
  #current: string | undefined;
  #shown = '';

  /** `pick`: the profile chosen for a new chat, null for none. */
  constructor(pick: (agent: string | null) => void) {
    this.el = h('select', { className: 'agent-select', attrs: { 'aria-label': 'Agent' } });
    this.el.hidden = true;
    this.el.addEventListener('change', () => {
      const value = this.el.value;
      // The open chat's profile until the new chat arrives.
      this.el.value = this.#current ?? NONE;
      if (value !== (this.#current ?? NONE)) pick(value === NONE ? null : value);
    });
  }

  render(
    agents: readonly AgentInfo[],
    current: string | undefined,
    errors: readonly AgentFileError[],
  ): void {
    this.#current = current;
    const key = JSON.stringify([agents, current]);
    if (key !== this.#shown) {
      this.#shown = key;
      const names = agents.map((agent) => agent.name);
      // A chat whose profile is no longer listed still shows it.
      const listed =
        current !== undefined && !names.includes(current)
          ? [...agents, { name: current, source: 'workspace', planning: false } as AgentInfo]
          : agents;
      this.el.replaceChildren(
        h('option', { text: 'No agent', attrs: { value: NONE } }),
        ...listed.map((agent) =>
          h('option', {
            text: agent.name,
            attrs: {
              value: agent.name,
              title: [agent.description, `(${agent.source})`].filter(Boolean).join(' '),
            },
          }),
        ),
      );
    }
    this.el.hidden = agents.length === 0 && current === undefined;
    const broken = errors.map((error) => `${error.file}: ${error.message}`);
    const title = ['Agent (starts a new chat)', ...broken].join('\n');
    setAttr(this.el, 'title', title);
    this.el.value = current ?? NONE;
  }
}
