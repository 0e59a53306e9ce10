/**
 * The webview's second script: the validator of host messages (zod and the
 * protocol's schemas, two thirds of the webview's code). main.ts draws the
 * first paint without it and loads it right after; host messages that arrive
 * before it are held, then validated in order.
 */
import { parseHostMessage } from '../src/shared/messages.js';

export type HostMessageValidator = typeof parseHostMessage;

(window as unknown as { arborValidator?: HostMessageValidator }).arborValidator = parseHostMessage;
window.dispatchEvent(new Event('arbor-validator'));
