/** Arbor's permission modes as ACP session modes: the mode id is the permission mode. */
import { PermissionMode } from '@arbor/protocol';
import { RequestError, type SessionMode, type SessionModeState } from '@agentclientprotocol/sdk';

const MODES: readonly SessionMode[] = [
  {
    id: 'plan',
    name: 'Plan',
    description: 'Read-only: tools that read run; writes and commands are blocked.',
  },
  {
    id: 'default',
    name: 'Ask',
    description: 'Reads run; every write and command asks for permission first.',
  },
  {
    id: 'auto',
    name: 'Auto',
    description: 'Every tool runs without asking, except tools configured to always ask.',
  },
];

export function sessionModes(current: PermissionMode): SessionModeState {
  return { currentModeId: current, availableModes: [...MODES] };
}

/** The permission mode an ACP mode id names; invalid params for any other id. */
export function permissionModeOf(modeId: string): PermissionMode {
  const parsed = PermissionMode.safeParse(modeId);
  if (!parsed.success) {
    throw RequestError.invalidParams(
      { modeId },
      `unknown mode ${modeId}; the modes are ${MODES.map((m) => m.id).join(', ')}`,
    );
  }
  return parsed.data;
}
