/** Daemon: framing, JSON-RPC errors, lifecycle, version negotiation, sessions and attach. */
import { citing, d, type CheckDef } from './define.js';

export const DAEMON_PROTOCOL_CHECKS: readonly CheckDef[] = [
  // Daemon: framing and JSON-RPC errors.
  d(
    'daemon.jsonrpc.parse-error',
    'MUST',
    'transport.md#transport-parse-error',
    'malformed JSON gets -32700 with id null and the connection stays open',
  ),
  d(
    'daemon.jsonrpc.invalid-envelope',
    'MUST',
    'transport.md#transport-invalid-envelope',
    'a valid JSON but invalid JSON-RPC message gets -32600',
  ),
  d(
    'daemon.jsonrpc.invalid-envelope-id',
    'MUST',
    'transport.md#transport-invalid-envelope-id',
    'the -32600 answer carries the usable id, else null',
  ),
  d(
    'daemon.jsonrpc.batch-rejected',
    'MUST',
    'transport.md#transport-batch-rejected',
    'a batch gets one -32600 error with id null and no element is processed',
  ),
  d(
    'daemon.jsonrpc.params-invalid',
    'MUST',
    'transport.md#transport-params-invalid',
    'invalid params of a known method get -32602',
  ),
  d(
    'daemon.jsonrpc.null-params',
    'MUST',
    'transport.md#transport-null-params',
    '"params": null is read as params omitted (session/list answers, shutdown and exit work)',
  ),
  d(
    'daemon.jsonrpc.empty-array-object',
    'MUST',
    'transport.md#transport-empty-array-object',
    '[] is read as {} where an object has only optional members (session/list, initialized, capabilities)',
  ),
  d(
    'daemon.jsonrpc.duplicate-id',
    'MUST',
    'transport.md#transport-duplicate-id',
    'a request with the id of one still unanswered gets -32600 with that id and is not processed; the first is answered',
  ),
  d(
    'daemon.jsonrpc.max-depth',
    'MUST',
    'transport.md#transport-max-depth',
    'a body nested more than 256 levels deep gets -32600 with id null, is not processed, and the connection stays open',
  ),
  citing(
    d(
      'daemon.jsonrpc.unknown-method',
      'MUST',
      'transport.md#transport-unknown-method',
      'an unknown request (also `_`-prefixed) gets -32601',
    ),
    'versioning.md#versioning-unknown-requests-32601',
  ),
  citing(
    d(
      'daemon.jsonrpc.unknown-notification-ignored',
      'MUST',
      'versioning.md#versioning-unknown-notifications-ignored',
      'an unknown notification (also `_`- and `$/`-prefixed) gets no response and changes nothing',
    ),
    'lifecycle.md#lifecycle-dollar-notifications-ignored',
  ),
  d(
    'daemon.jsonrpc.cancel-unknown-ignored',
    'MUST',
    'lifecycle.md#lifecycle-cancel-unknown-id',
    '$/cancelRequest for an unknown id is ignored',
  ),
  d(
    'daemon.jsonrpc.cancel-still-responds',
    'MUST',
    'lifecycle.md#lifecycle-cancel-still-responds',
    'a request cancelled in flight still gets exactly one response: its result or -32800',
  ),
  d(
    'daemon.transport.max-size-advertised',
    'MUST',
    'transport.md#transport-max-size-advertised',
    'the initialize result advertises capabilities.maxMessageBytes',
  ),
  d(
    'daemon.transport.oversize-error',
    'CAPABILITY',
    'transport.md#transport-oversize-error',
    'a frame over maxMessageBytes gets -33003 with id null',
    'daemon.maxMessageBytes',
  ),
  d(
    'daemon.transport.oversize-discard',
    'CAPABILITY',
    'transport.md#transport-oversize-discard',
    'after an oversize frame the connection serves the next frame',
    'daemon.maxMessageBytes',
  ),
  citing(
    d(
      'daemon.transport.socket-token',
      'MUST',
      'lifecycle.md#lifecycle-token-rejected',
      'a socket initialize without the right token (missing, wrong, not a string, differing under initializationOptions) gets -33000 and the connection is closed',
    ),
    'lifecycle.md#lifecycle-token-both-equal',
    'transport.md#transport-socket-token',
    'security.md#security-token-presented',
  ),
  d(
    'daemon.transport.preauth-frame-limit',
    'SHOULD',
    'transport.md#transport-preauth-bounds',
    'before the token, a 1.5 MiB frame gets -33003 and the connection is closed',
  ),
  d(
    'daemon.transport.preauth-deadline',
    'SHOULD',
    'transport.md#transport-preauth-bounds',
    'a socket connection that never initializes is closed within 12 s',
  ),

  // Daemon: lifecycle.
  d(
    'daemon.lifecycle.initialize-result',
    'MUST',
    'lifecycle.md#lifecycle-initialize-order',
    'initialize is answered with protocolVersion, serverInfo, capabilities and clientId',
  ),
  citing(
    d(
      'daemon.lifecycle.not-initialized',
      'MUST',
      'lifecycle.md#lifecycle-not-initialized',
      'a request before initialize (on a socket: before the token) gets -32002',
    ),
    'lifecycle.md#lifecycle-token-nothing-before',
  ),
  d(
    'daemon.lifecycle.initialize-once',
    'MUST',
    'lifecycle.md#lifecycle-second-initialize',
    'a second initialize gets -33002',
  ),
  d(
    'daemon.lifecycle.after-shutdown',
    'MUST',
    'lifecycle.md#lifecycle-after-shutdown-requests',
    'after shutdown every request gets -32600',
  ),
  d(
    'daemon.lifecycle.exit-code',
    'MUST',
    'lifecycle.md#lifecycle-exit-stdio-code',
    'stdio: exit ends the process with code 0 after shutdown, 1 without',
  ),
  d(
    'daemon.lifecycle.shutdown-params',
    'MUST',
    'lifecycle.md#lifecycle-shutdown-params',
    'shutdown with params absent, null, {} or [] answers null; with [1] -32602',
  ),
  d(
    'daemon.lifecycle.shutdown-stdio-turns',
    'SHOULD',
    'lifecycle.md#lifecycle-shutdown-stdio-turns',
    'stdio: shutdown while a turn runs ends it (stopReason cancelled) before the shutdown result',
  ),
  d(
    'daemon.lifecycle.initialization-options',
    'CAPABILITY',
    'lifecycle.md#lifecycle-initialization-options',
    'approvals, clientTools and tools declared only under initializationOptions count: the client is asked, its tool runs',
    'daemon.clientTools',
  ),
  d(
    'daemon.lifecycle.quiet-before-initialized',
    'CAPABILITY',
    'lifecycle.md#lifecycle-daemon-quiet-before-initialized',
    'a tool/approvalRequest due before the client sent initialized waits for it, then is sent',
    'daemon.clientTools',
  ),
  d(
    'daemon.lifecycle.initialize-trace',
    'SHOULD',
    'lifecycle.md#lifecycle-initialize-trace',
    'initialize with trace "messages" turns $/logTrace on without $/setTrace',
  ),

  // Daemon: version negotiation.
  d(
    'daemon.version.supported',
    'MUST',
    'versioning.md#versioning-daemon-chooses',
    "a client speaking the suite's version gets that protocolVersion",
  ),
  citing(
    d(
      'daemon.version.newer-client',
      'MUST',
      'versioning.md#versioning-daemon-chooses',
      "a client newer than the daemon gets min(its version, the daemon's newest), never more than it sent",
    ),
    'versioning.md#versioning-never-higher',
  ),
  d(
    'daemon.version.absent-means-1',
    'MUST',
    'versioning.md#versioning-absent-means-1',
    'initialize without protocolVersion is treated as version 1',
  ),

  // Daemon: sessions and attach.
  d(
    'daemon.sessions.new',
    'MUST',
    'sessions.md#session-new',
    'session/new answers an idle session with the requested root and mode',
  ),
  d(
    'daemon.sessions.invalid-workspace-root',
    'MUST',
    'sessions.md#sessions-new-workspace-root',
    'a missing or relative workspace root gets -33009',
  ),
  d(
    'daemon.sessions.invalid-model',
    'MUST',
    'sessions.md#sessions-new-invalid-model',
    'a malformed model or an unknown provider gets -33011',
  ),
  d(
    'daemon.sessions.list',
    'MUST',
    'sessions.md#session-list',
    'session/list includes the new session',
  ),
  d(
    'daemon.sessions.load',
    'MUST',
    'sessions.md#session-load',
    'session/load returns the session and its messages',
  ),
  d(
    'daemon.sessions.not-found',
    'MUST',
    'sessions.md#sessions-unknown-session',
    'an unknown sessionId gets -33004',
  ),
  d(
    'daemon.sessions.delete-cancels-turn',
    'CAPABILITY',
    'sessions.md#sessions-delete-cancels-turn',
    "session/delete during a turn: every attached client gets the turn's cost/summary and one idle, stopReason cancelled",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.delete-notifies',
    'MUST',
    'sessions.md#sessions-delete-notifies',
    "every attached client gets session/deleted, exactly once, as the session's last event",
  ),
  d(
    'daemon.sessions.delete-answer-last',
    'MUST',
    'sessions.md#sessions-delete-answer-last',
    'the deleting client has every event of the session before the session/delete result',
  ),
  d(
    'daemon.sessions.delete-detaches',
    'MUST',
    'sessions.md#sessions-delete-detaches',
    'after session/delete, requests naming the session get -33004',
  ),
  d(
    'daemon.sessions.slow-consumer-detached',
    'SHOULD',
    'sessions.md#sessions-detached-slow-consumer',
    "a client that reads nothing while 32 MiB of a session's events stream is detached with session/detached",
  ),
  d(
    'daemon.sessions.detached-resume',
    'CAPABILITY',
    'sessions.md#sessions-detached-slow-consumer',
    'nothing of the session follows session/detached; re-attaching with sinceSeq = the last seq seen replays the rest without a gap',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.attach-role',
    'MUST',
    'sessions.md#sessions-attach-role-granted',
    'session/attach answers with the requested role',
  ),
  d(
    'daemon.sessions.observer-cannot-control',
    'MUST',
    'sessions.md#sessions-observer-refused',
    'an observer sending chat/send gets -33006',
  ),
  d(
    'daemon.sessions.events-to-all-attached',
    'MUST',
    'turns.md#turns-seq-same-for-all',
    'every attached client receives the same events with the same seq',
  ),
  // Daemon: what its frame reader tolerates and refuses, how stdio and sockets end.
  d(
    'daemon.transport.unknown-headers',
    'MUST',
    'transport.md#transport-unknown-headers',
    'a frame with Content-Type and an unknown header field is read like any other',
  ),
  d(
    'daemon.transport.reassembly',
    'MUST',
    'transport.md#transport-reassembly',
    'a frame written one byte at a time, and frames sharing writes, are each answered',
  ),
  d(
    'daemon.transport.unknown-response-ignored',
    'MUST',
    'transport.md#transport-unknown-response-ignored',
    'a response to no request of the daemon gets no answer and changes nothing',
  ),
  citing(
    d(
      'daemon.transport.bad-header-close',
      'MUST',
      'transport.md#transport-bad-header-close',
      'a malformed header part closes the connection (stdio: exit code 1); on a socket another connection is still served',
    ),
    'transport.md#transport-connection-isolation',
  ),
  d(
    'daemon.transport.stdin-eof',
    'MUST',
    'transport.md#transport-stdin-eof',
    'stdio: at the end of stdin the daemon exits, code 0 after shutdown, 1 without',
  ),
  citing(
    d(
      'daemon.transport.unix-socket-mode',
      'MUST',
      'transport.md#transport-unix-socket-mode',
      'a Unix socket has no permission for group or others',
    ),
    'security.md#security-loopback',
  ),

  // Daemon: initialize, exit, shutdown and trace.
  d(
    'daemon.lifecycle.token-stdio',
    'MUST',
    'lifecycle.md#lifecycle-token-stdio',
    'stdio: an initialize carrying tokens (two that differ) succeeds',
  ),
  d(
    'daemon.lifecycle.failed-initialize-retry',
    'MUST',
    'lifecycle.md#lifecycle-failed-initialize-retry',
    'after an initialize refused with -32602 (protocolVersion 0), a valid initialize succeeds',
  ),
  d(
    'daemon.lifecycle.exit-any-state',
    'MUST',
    'lifecycle.md#lifecycle-exit-any-state',
    'exit before initialize, with params [1, "two"], ends the connection (stdio: the daemon)',
  ),
  d(
    'daemon.lifecycle.exit-socket',
    'MUST',
    'lifecycle.md#lifecycle-exit-socket',
    'on a socket exit closes that connection; another one is still served',
  ),
  d(
    'daemon.lifecycle.shutdown-detach',
    'MUST',
    'lifecycle.md#lifecycle-shutdown-detach',
    'after shutdown is answered, no event of a session the connection was attached to reaches it',
  ),
  d(
    'daemon.lifecycle.logtrace-off',
    'MUST',
    'lifecycle.md#lifecycle-logtrace-off',
    'no $/logTrace while the trace value is off (never set, or set off again); none with verbose at messages',
  ),
  citing(
    d(
      'daemon.lifecycle.early-notifications',
      'MUST',
      'lifecycle.md#lifecycle-early-notifications',
      '$/setTrace verbose sent before initialize is dropped: no $/logTrace follows',
    ),
    'lifecycle.md#lifecycle-token-nothing-before',
  ),

  // Daemon: closed enums and errors.
  citing(
    d(
      'daemon.version.unknown-members-accepted',
      'MUST',
      'versioning.md#versioning-unknown-fields-ignored',
      'initialize, session/new, session/list and setPermissionMode with string ids, _meta on every object, unknown members and unknown capability fields are served as without them',
    ),
    'versioning.md#versioning-meta-everywhere',
    'versioning.md#versioning-unknown-capabilities',
  ),
  citing(
    d(
      'daemon.version.invalid-enum-request',
      'MUST',
      'versioning.md#versioning-invalid-enum-request',
      'an unknown or unadvertised permission mode (session/new, setPermissionMode) and an unknown role get -32602',
    ),
    'sessions.md#sessions-new-mode-supported',
    'sessions.md#sessions-mode-unsupported',
  ),
  d(
    'daemon.errors.precedence',
    'MUST',
    'errors.md#errors-precedence',
    'InvalidParams before SessionNotFound, SessionNotFound before NotAttached',
  ),
  d(
    'daemon.errors.message-safe',
    'MUST',
    'errors.md#errors-message-safe',
    'error messages are non-empty and repeat neither the offending message nor its members',
  ),

  // Daemon: who may do what to a session, paging, mode and model changes.
  d(
    'daemon.sessions.not-attached',
    'MUST',
    'sessions.md#sessions-not-attached',
    'chat/send, chat/cancel, session/setPermissionMode and session/detach from a client not attached get -33007',
  ),
  d(
    'daemon.sessions.reattach',
    'MUST',
    'sessions.md#sessions-attach-reattach',
    'a controller attaching again as observer is an observer (session/setPermissionMode gets -33006)',
  ),
  citing(
    d(
      'daemon.sessions.list-order',
      'MUST',
      'sessions.md#sessions-list-order',
      'session/list pages of limit 2: newest first, nextCursor on every page but the last',
    ),
    'sessions.md#sessions-list-cursor',
  ),
  citing(
    d(
      'daemon.sessions.list-load-no-attach',
      'MUST',
      'sessions.md#sessions-list-no-attach',
      'a client that lists and loads a session it is not attached to gets none of its events',
    ),
    'sessions.md#sessions-load-no-attach',
  ),
  citing(
    d(
      'daemon.sessions.mode-update',
      'MUST',
      'sessions.md#sessions-mode-broadcast',
      'a mode change reaches the client that asked (the creator, never attached explicitly: first seq 1) and an observer as session/update',
    ),
    'sessions.md#sessions-update-on-change',
    'sessions.md#sessions-new-attaches-controller',
  ),
  citing(
    d(
      'daemon.sessions.set-model-update',
      'CAPABILITY',
      'sessions.md#sessions-set-model-update',
      'session/setModel: the requester gets session/update with the model before the result, an observer gets it too',
      'daemon.sessions.setModel',
    ),
    'sessions.md#sessions-update-on-change',
  ),
  citing(
    d(
      'daemon.tools.servers-session-only',
      'CAPABILITY',
      'tools.md#tools-list-servers-session',
      'tools/list without a session returns no servers, rules or rulesError',
      'daemon.tools',
    ),
    'tools.md#tools-list-rules-session',
  ),
  d(
    'daemon.tools.servers-origin',
    'CAPABILITY',
    'tools.md#tools-list-servers-origin',
    'tools/list servers: each listed once; every tool with an mcp: origin comes from a ready server of that origin',
    'daemon.tools',
  ),
  d(
    'daemon.turns.chunk-node-announced',
    'MUST',
    'turns.md#turns-chunk-node-announced',
    'every chat/chunk names a node a tree/update of the turn announced before it',
  ),
  d(
    'daemon.turns.chunk-code-points',
    'MUST',
    'turns.md#turns-chunk-code-points',
    'no chat/chunk begins or ends inside a surrogate pair',
  ),
  d(
    'daemon.tree.turn-usage',
    'MUST',
    'tree.md#tree-usage-rollup',
    "the turn node's last usage equals the usage of the turn's idle session/state",
  ),
  d(
    'daemon.turns.text-joined',
    'MUST',
    'turns.md#turns-text-joined',
    "text of a later model call joins the earlier with a blank line, in the later answer's first chunk, and is stored the same",
  ),
  d(
    'daemon.sessions.set-model-stored',
    'CAPABILITY',
    'sessions.md#sessions-set-model-next-turn',
    'after session/setModel, session/load gives the new model as the session’s (what serves later turns is not observable with the scripted provider)',
    'daemon.sessions.setModel',
  ),
  citing(
    d(
      'daemon.sessions.set-model-refused',
      'CAPABILITY',
      'sessions.md#sessions-set-model-controller',
      'session/setModel from an observer gets -33006, from a client not attached -33007, with a bad model -33011',
      'daemon.sessions.setModel',
    ),
    'sessions.md#sessions-set-model-invalid',
  ),

  // Daemon: replay, snapshots, detaching.
  citing(
    d(
      'daemon.sessions.replay-events',
      'MUST',
      'sessions.md#sessions-replay-events',
      'attach with sinceSeq: the response, then exactly the missed events as first sent; none when none was missed; every later event',
    ),
    'sessions.md#sessions-replay-response-first',
    'sessions.md#sessions-replay-nothing-missed',
    'sessions.md#sessions-attach-all-events',
  ),
  d(
    'daemon.sessions.attach-mid-turn',
    'CAPABILITY',
    'sessions.md#sessions-attach-mid-turn',
    'an attach without sinceSeq during a turn answers a snapshot (turnId, tree, texts so far); only later events follow',
    'daemon.testing.scriptedProvider',
  ),
  citing(
    d(
      'daemon.sessions.detach',
      'CAPABILITY',
      'sessions.md#sessions-detach-no-events',
      'after the session/detach result no event of the session comes, and the running turn completes',
      'daemon.testing.scriptedProvider',
    ),
    'sessions.md#sessions-detach-turn-continues',
  ),
  d(
    'daemon.sessions.disconnect-continues',
    'CAPABILITY',
    'sessions.md#sessions-disconnect-detach',
    'a turn whose controller disconnects completes',
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.load-parts',
    'CAPABILITY',
    'sessions.md#sessions-load-parts-fold',
    "session/load parts are the fold of the turn's tree/update and chat/chunk events in seq order",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.load-plan',
    'CAPABILITY',
    'sessions.md#sessions-load-plan',
    "session/load returns the entries of the session's last plan/update as plan",
    'daemon.testing.scriptedProvider',
  ),
  d(
    'daemon.sessions.load-cost',
    'CAPABILITY',
    'sessions.md#sessions-load-cost',
    "session/load cost is the turn's cost/summary as sent, without sessionId, seq and turnId",
    'daemon.testing.scriptedProvider',
  ),
  // Slash commands (commands.md, protocol 1.1).
  d(
    'daemon.commands.capability',
    'MUST',
    'commands.md#commands-capability',
    'commands/list is served exactly when capabilities.commands is advertised',
  ),
  citing(
    d(
      'daemon.commands.list',
      'CAPABILITY',
      'commands.md#commands-workspace-files',
      'commands/list lists .arbor/commands/<name>.md of the workspace as command <name> with its frontmatter, commands first, each kind sorted and unique',
      'daemon.commands',
    ),
    'commands.md#commands-list-unique',
  ),
  d(
    'daemon.commands.list-unknown-session',
    'CAPABILITY',
    'commands.md#commands-list-session',
    'commands/list for an unknown session answers -33004',
    'daemon.commands',
  ),
  citing(
    d(
      'daemon.commands.expand',
      'CAPABILITY',
      'commands.md#commands-expand-model',
      "a chat/send text /name args gives the model the command's expansion ($1, $ARGUMENTS)",
      'daemon.commands',
    ),
    'commands.md#commands-list-current',
  ),
  d(
    'daemon.commands.expand-stored',
    'CAPABILITY',
    'commands.md#commands-expand-stored',
    'the stored user message of a command turn is the text as sent',
    'daemon.commands',
  ),
  d(
    'daemon.commands.unknown',
    'CAPABILITY',
    'commands.md#commands-expand-unknown',
    'a /word naming no command is accepted and reaches the model unchanged',
    'daemon.commands',
  ),
  d(
    'daemon.commands.changed',
    'CAPABILITY',
    'commands.md#commands-changed-when',
    'a command file added since the last list is announced with commands/changed before the next turn runs',
    'daemon.commands',
  ),
  d(
    'daemon.jsonrpc.invalid-response',
    'MUST',
    'transport.md#transport-invalid-response',
    'a message shaped as a response is never answered, even with both result and error or a malformed error',
  ),
];
